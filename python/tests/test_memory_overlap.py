"""In-place writes whose input shares memory with the output, or whose
output has several elements at one address, raise PyTorch's RuntimeError
(Note [Memory overlap]); index values outside the dim raise as in PyTorch."""

import pytest

import ember
import ember.nn.functional as F

from helpers import assert_close

PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory location"
INTERNAL = "more than one element of the written-to tensor"


@pytest.mark.parametrize("write", [
    lambda b: b.copy_(b.t()),
    lambda b: b[1:].copy_(b[:2]),
    lambda b: b.t().copy_(b),
    lambda b: b.add_(b.t()),
    lambda b: b.add_(b[0]),
    lambda b: b[1:].add_(b[:2]),
], ids=["copy-transposed", "copy-shifted", "into-transposed", "add-transposed", "add-row", "add-shifted"])
def test_partial_overlap_is_refused(write, torch):
    with pytest.raises(RuntimeError, match=PARTIAL):
        write(torch.arange(9.0).reshape(3, 3))
    b = ember.arange(9.0).reshape(3, 3)
    with pytest.raises(RuntimeError, match=PARTIAL):
        write(b)
    assert b.tolist() == ember.arange(9.0).reshape(3, 3).tolist()


@pytest.mark.parametrize("write", [
    lambda e: e.copy_(e.clone() + 1),
    lambda e: e.exp_(),
    lambda e: e.add_(1),
    lambda e: e.mul_(2),
    lambda e: e.clamp_(max=0),
    lambda e: e.uniform_(),
    lambda e: e.__setitem__(slice(None), e.clone() * 0),
], ids=["copy_", "exp_", "add_", "mul_", "clamp_", "uniform_", "setitem-slice"])
def test_writes_into_expanded_tensors_are_refused(write, torch):
    with pytest.raises(RuntimeError, match=INTERNAL):
        write(torch.ones(1).expand(3))
    e = ember.ones(1).expand(3)
    with pytest.raises(RuntimeError, match=INTERNAL):
        write(e)
    assert e.tolist() == [1.0, 1.0, 1.0]


def test_advanced_assignment_into_an_expanded_tensor_is_refused():
    # PyTorch only warns here; the write that lands depends on the kernel.
    e = ember.ones(1).expand(3)
    with pytest.raises(RuntimeError, match="index_put_: unsupported operation"):
        e[ember.tensor([0, 1])] = ember.tensor([5.0, 6.0])
    e[0] = 5.0  # one element of it is fine, as in PyTorch
    e.fill_(2.0)
    assert e.tolist() == [2.0, 2.0, 2.0]


def test_interleaved_views_give_the_out_of_place_result(torch):
    x = ember.arange(9.0).reshape(3, 3)
    x[:, 1:].copy_(x[:, :2])
    assert x.tolist() == [[0.0, 0.0, 1.0], [3.0, 3.0, 4.0], [6.0, 6.0, 7.0]]
    y = ember.arange(9.0).reshape(3, 3)
    y.add_(y[:, 0:1])
    assert y.tolist() == [[0.0, 1.0, 2.0], [6.0, 7.0, 8.0], [12.0, 13.0, 14.0]]
    z, tz = ember.arange(9.0).reshape(3, 3), torch.arange(9.0).reshape(3, 3)
    assert_close(z.copy_(z.flip(0)), tz.copy_(tz.flip(0)))
    assert_close(z.mul_(z), tz.mul_(tz))


@pytest.mark.parametrize("call", [
    lambda T, F: T.index_select(T.ones(3), 0, T.tensor([-1])),
    lambda T, F: T.index_select(T.ones(3), 0, T.tensor([3])),
    lambda T, F: F.embedding(T.tensor([-1]), T.ones(3, 2)),
    lambda T, F: T.gather(T.ones(3), 0, T.tensor([-1])),
    lambda T, F: T.ones(3).scatter_add(0, T.tensor([-1]), T.ones(1)),
    lambda T, F: T.ones(3)[T.tensor([-4])],
], ids=["index_select-negative", "index_select-past", "embedding", "gather", "scatter_add", "advanced"])
def test_out_of_range_indices(call, torch):
    with pytest.raises(Exception) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(type(expected.value), match="-1|3|-4"):
        call(ember, F)


def test_advanced_indexing_still_counts_negative_indices_from_the_end(torch):
    assert_close(ember.arange(6.0).reshape(2, 3)[:, ember.tensor([-1, 0])],
                 torch.arange(6.0).reshape(2, 3)[:, torch.tensor([-1, 0])])
