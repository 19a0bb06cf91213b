"""bincount, histc, tensordot, vdot, logspace and unravel_index against
PyTorch 2.13: values, dtypes and the errors of bad arguments."""

import pytest

import ember

from helpers import assert_close


def _same(ours, theirs):
    assert str(ours.dtype).removeprefix("ember.") == str(theirs.dtype).removeprefix("torch.")
    assert_close(ours, theirs)


@pytest.mark.parametrize("call", [
    lambda T: T.bincount(T.tensor([0, 1, 1, 3, 1])),
    lambda T: T.bincount(T.tensor([2, 0]), minlength=5),
    lambda T: T.bincount(T.tensor([], dtype=T.int64)),
    lambda T: T.bincount(T.tensor([0, 1, 1, 3]), T.tensor([0.5, 1.0, 2.0, 4.0])),
    lambda T: T.bincount(T.tensor([0, 1, 1]), T.tensor([1, 2, 3])),
    lambda T: T.tensor([4, 4, 0], dtype=T.int32).bincount(),
    lambda T: T.histc(T.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=3),
    lambda T: T.histc(T.tensor([1.0, 1.0, 1.0]), bins=4),
    lambda T: T.tensor([0.0, 0.999, 1.0, 2.5, 3.0, -1.0, 7.0]).histc(bins=3, min=0, max=3),
    lambda T: T.tensordot(T.arange(24.0).reshape(2, 3, 4), T.arange(12.0).reshape(4, 3), dims=([1, 2], [1, 0])),
    lambda T: T.tensordot(T.arange(24.0).reshape(2, 3, 4), T.ones(4, 5), dims=1),
    lambda T: T.tensordot(T.arange(12.0).reshape(3, 4), T.ones(3, 4), dims=2),
    lambda T: T.tensordot(T.arange(6.0).reshape(2, 3), T.arange(4.0).reshape(2, 2), dims=0),
    lambda T: T.vdot(T.tensor([1.0, 2.0]), T.tensor([3.0, 4.0])),
    lambda T: T.logspace(0, 2, 3),
    lambda T: T.logspace(0, 1, 3, base=2),
    lambda T: T.logspace(0, 2, 3, dtype=T.int64),
    lambda T: T.logspace(-1, 1, 5, dtype=T.float64),
], ids=["bincount", "minlength", "empty", "float32-weights", "int-weights", "method", "histc", "histc-one-value",
        "histc-edges", "tensordot-lists", "tensordot-1", "tensordot-2", "tensordot-0", "vdot", "logspace",
        "logspace-base", "logspace-int", "logspace-float64"])
def test_values_and_dtypes_match_pytorch(call, torch):
    _same(call(ember), call(torch))


def test_unravel_index_matches_pytorch_and_wraps_around(torch):
    for indices, shape in (([4, 1], (2, 3)), ([6, -1, -7], (2, 3)), ([0, 23], (2, 3, 4))):
        ours = ember.unravel_index(ember.tensor(indices), shape)
        theirs = torch.unravel_index(torch.tensor(indices), shape)
        assert [c.tolist() for c in ours] == [c.tolist() for c in theirs]
    assert [c.item() for c in ember.unravel_index(ember.tensor(7), (2, 4))] == [1, 3]
    for library in (torch, ember):
        with pytest.raises(TypeError, match="integer dtype"):
            library.unravel_index(library.tensor([1.5]), (2, 3))


def test_tensordot_gradients_flow_to_both_operands(torch):
    a_data, b_data = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, -1.0], [0.5, 2.0], [3.0, 0.0]]
    grads = {}
    for library in (torch, ember):
        a = library.tensor(a_data, requires_grad=True)
        b = library.tensor(b_data, requires_grad=True)
        (library.tensordot(a, b, dims=([1], [0])) ** 2).sum().backward()
        grads[library] = (a.grad.tolist(), b.grad.tolist())
    assert grads[ember] == grads[torch]


@pytest.mark.parametrize("call, error, message", [
    (lambda T: T.bincount(T.tensor([1.0])), RuntimeError, None),
    (lambda T: T.bincount(T.tensor([[1, 2]])), RuntimeError, "bincount only supports 1-d non-negative integral"),
    (lambda T: T.bincount(T.tensor([-1])), RuntimeError, "bincount only supports 1-d non-negative integral"),
    (lambda T: T.bincount(T.tensor([1, 2]), T.tensor([1.0])), RuntimeError, None),
    (lambda T: T.histc(T.tensor([1, 2]), bins=2), NotImplementedError, None),
    (lambda T: T.tensordot(T.ones(2, 3), T.ones(4, 3), dims=([1], [1, 0])), RuntimeError,
     "both dimension lists should have same length"),
    (lambda T: T.tensordot(T.ones(2, 3), T.ones(4, 3), dims=-1), RuntimeError, "tensordot expects dims >= 0"),
    (lambda T: T.tensordot(T.ones(2, 3), T.ones(4, 3), dims=([1], [0])), RuntimeError,
     "contracted dimensions need to match"),
    (lambda T: T.vdot(T.ones(2, 2), T.ones(4)), RuntimeError, "1D tensors expected, but got 2D and 1D tensors"),
], ids=["bincount-float", "bincount-2d", "bincount-negative", "bincount-weights", "histc-int", "tensordot-lists",
        "tensordot-negative", "tensordot-sizes", "vdot-2d"])
def test_bad_arguments_raise_as_in_pytorch(call, error, message, torch):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error, match=message):
        call(ember)
