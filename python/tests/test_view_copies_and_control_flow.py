"""torch's `<view>_copy` functions, nonzero_static, cond and
while_loop, and the Tensor methods dim_order, is_set_to, as_strided_ and
const_data_ptr, against PyTorch 2.13."""

import numpy
import pytest

import ember

from helpers import assert_close

CALLS = [
    ("permute_copy", ((2, 0, 1),), {}), ("select_copy", (1, 2), {}), ("slice_copy", (2, 1, 4, 2), {}),
    ("split_copy", (2,), {}), ("split_with_sizes_copy", ([1, 2], 1), {}), ("squeeze_copy", (), {}),
    ("transpose_copy", (0, 2), {}), ("unbind_copy", (1,), {}), ("unsqueeze_copy", (1,), {}),
    ("diagonal_copy", (0, 1, 2), {}), ("detach_copy", (), {}), ("alias_copy", (), {}),
    ("as_strided_copy", ((2, 2), (1, 2), 1), {}), ("expand_copy", ((2, 2, 3, 4),), {}),
    ("view_copy", ((6, 4),), {}), ("unfold_copy", (2, 2, 1), {}), ("narrow_copy", (2, 1, 2), {}),
]


@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=[c[0] for c in CALLS])
def test_view_copies_own_their_memory(torch, name, args, kwargs):
    values = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    results = []
    for lib in (ember, torch):
        source = lib.tensor(values)
        out = getattr(lib, name)(source, *args, **kwargs)
        pieces = out if isinstance(out, (tuple, list)) else [out]
        for piece in pieces:
            assert piece.data_ptr() != source.data_ptr() or piece.numel() == 0
        results.append(pieces)
    assert len(results[0]) == len(results[1])
    for ours, theirs in zip(*results):
        assert_close(ours, theirs)
        assert ours.is_contiguous() == theirs.is_contiguous()


def test_t_copy(torch):
    for lib in (ember, torch):
        matrix = lib.arange(6.0).reshape(2, 3)
        assert lib.t_copy(matrix).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_nonzero_static(torch):
    for size, fill in ((2, -1), (5, 7), (0, 0)):
        values = [[0, 1, 0], [2, 0, 3]]
        assert ember.nonzero_static(ember.tensor(values), size=size, fill_value=fill).tolist() == \
            torch.nonzero_static(torch.tensor(values), size=size, fill_value=fill).tolist()


def test_cond_and_while_loop(torch):
    for lib in (ember, torch):
        x = lib.tensor([1.0, 2.0])
        assert lib.cond(x.sum() > 2, lambda a: a * 2, lambda a: a - 1, (x,)).tolist() == [2.0, 4.0]
        assert lib.cond(False, lambda a: a * 2, lambda a: a - 1, [x]).tolist() == [0.0, 1.0]
        count, total = lib.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (lib.tensor(0),
                                                                                      lib.tensor(0)))
        assert (count.item(), total.item()) == (4, 6)
    with pytest.raises(RuntimeError, match="cond: pred must be a Python bool or a tensor with one element"):
        ember.cond(ember.ones(2), lambda: 1, lambda: 0)
    with pytest.raises(RuntimeError, match="body_fn returned 1 values for 2 carried inputs"):
        ember.while_loop(lambda i, s: i < 1, lambda i, s: i + 1, (ember.tensor(0), ember.tensor(0)))


def test_dim_order_is_set_to_as_strided_(torch):
    for lib in (ember, torch):
        x = lib.zeros(2, 3, 4)
        assert x.dim_order() == (0, 1, 2) and x.permute(2, 0, 1).dim_order() == (1, 2, 0)
        assert x.is_set_to(x.view(2, 3, 4)) and not x.is_set_to(x.view(6, 4))
        assert x.const_data_ptr() == x.data_ptr()
        y = lib.arange(6.0)
        returned = y.as_strided_((2, 2), (1, 2), 1)
        assert returned is y and y.tolist() == [[1.0, 3.0], [2.0, 4.0]]
