"""Composite ops written over the primitives (lerp, fmod, nan_to_num,
count_nonzero, addmm, baddbmm, outer, diag, cdist, scatter, scatter_reduce,
repeat_interleave, meshgrid, broadcast_tensors, movedim, unfold,
split_with_sizes, einsum) against PyTorch: values and dtypes over shapes,
empty and non-contiguous inputs, and float64 gradients by gradcheck."""

import numpy
import pytest

import ember
from ember.autograd import gradcheck
from helpers import assert_close

RNG = numpy.random.default_rng(0)


def pair(torch, array, device, dtype=None):
    """The same values as an ember tensor on device and a PyTorch tensor."""
    array = numpy.asarray(array if dtype is None else numpy.asarray(array).astype(dtype))
    return ember.tensor(array, device=device), torch.tensor(array)


def leaf(shape, device):
    return ember.tensor(RNG.standard_normal(shape), device=device).requires_grad_()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lerp_matches_pytorch_with_number_and_tensor_weights(torch, device, dtype):
    start, t_start = pair(torch, RNG.standard_normal((2, 3)), device, dtype)
    end, t_end = pair(torch, RNG.standard_normal((3,)), device, dtype)
    weight, t_weight = pair(torch, [0.0, 0.3, 1.0], device, dtype)
    for w, tw in ((0.25, 0.25), (0.75, 0.75), (1.0, 1.0), (weight, t_weight)):
        assert_close(ember.lerp(start, end, w), torch.lerp(t_start, t_end, tw))
    assert_close(start.clone().lerp_(end, 0.75), t_start.clone().lerp_(t_end, 0.75))
    assert gradcheck(lambda a, b, w: ember.lerp(a, b, w), (leaf([2, 3], device), leaf([3], device),
                                                           leaf([2, 3], device)))


def test_fmod_takes_the_sign_of_the_dividend(torch, device):
    for dtype in ("int64", "int32", "float32", "float64"):
        a, ta = pair(torch, [[-7, 7, -3, 3, 0, 5]], device, dtype)
        b, tb = pair(torch, [2, -2, 5, -5, 3, 3], device, dtype)
        assert_close(ember.fmod(a, b), torch.fmod(ta, tb))
        assert_close(a.fmod(3), ta.fmod(3))
    a, ta = pair(torch, [-7.5, 7.5, 1e10, -2.0], device)
    assert_close(ember.fmod(a, 2.5), torch.fmod(ta, 2.5))
    assert_close(ember.fmod(a.t() if a.dim() == 2 else a[::2], 0.7), torch.fmod(ta[::2], 0.7))
    x = ember.tensor([0.3, -1.7, 2.9], dtype=ember.float64, device=device).requires_grad_()
    y = ember.tensor([0.7, 0.5, -1.1], dtype=ember.float64, device=device).requires_grad_()
    assert gradcheck(ember.fmod, (x, y))


def test_nan_to_num_and_count_nonzero(torch, device):
    for dtype in ("float16", "float32", "float64"):
        x, tx = pair(torch, [float("nan"), float("inf"), -float("inf"), 1.5], device, dtype)
        assert_close(ember.nan_to_num(x), torch.nan_to_num(tx))
        assert_close(x.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0), tx.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0))
    ints, t_ints = pair(torch, [[0, 2, 0], [1, 0, 3]], device, "int64")
    assert_close(ember.nan_to_num(ints), torch.nan_to_num(t_ints))
    for dim in (None, 0, 1, (0, 1)):
        assert_close(ember.count_nonzero(ints, dim=dim), torch.count_nonzero(t_ints, dim=dim))
    assert_close(ember.count_nonzero(ember.zeros(0, 3, device=device), 0),
                 torch.count_nonzero(torch.zeros(0, 3), 0))


def test_addmm_baddbmm_outer(torch, device):
    bias, t_bias = pair(torch, RNG.standard_normal((4,)), device)
    m1, t_m1 = pair(torch, RNG.standard_normal((3, 2)), device)
    m2, t_m2 = pair(torch, RNG.standard_normal((4, 2)), device)
    assert_close(ember.addmm(bias, m1, m2.t()), torch.addmm(t_bias, t_m1, t_m2.t()))
    assert_close(bias.addmm(m1, m2.t(), beta=0.5, alpha=2), t_bias.addmm(t_m1, t_m2.t(), beta=0.5, alpha=2))
    nan_bias = ember.full((3, 4), float("nan"), dtype=ember.float64, device=device)
    assert_close(ember.addmm(nan_bias, m1, m2.t(), beta=0), torch.addmm(torch.full((3, 4), float("nan"), dtype=torch.float64),
                                                                         t_m1, t_m2.t(), beta=0))
    b1, t_b1 = pair(torch, RNG.standard_normal((2, 3, 5)), device)
    b2, t_b2 = pair(torch, RNG.standard_normal((2, 5, 0)), device)
    base, t_base = pair(torch, RNG.standard_normal((3, 1)), device)
    assert_close(ember.baddbmm(base, b1, b2), torch.baddbmm(t_base, t_b1, t_b2))
    b2, t_b2 = pair(torch, RNG.standard_normal((2, 5, 4)), device)
    assert_close(ember.baddbmm(base, b1, b2, alpha=-1), torch.baddbmm(t_base, t_b1, t_b2, alpha=-1), rtol=1e-5)
    u, tu = pair(torch, [1, 2, 3], device, "int64")
    v, tv = pair(torch, [0.5, 2.0], device, "float32")
    assert_close(ember.outer(u, v), torch.outer(tu, tv))
    assert_close(ember.ger(u, u), torch.ger(tu, tu))
    assert gradcheck(lambda c, a, b: ember.addmm(c, a, b, beta=0.5, alpha=2),
                     (leaf([3], device), leaf([2, 4], device), leaf([4, 3], device)))
    assert gradcheck(ember.baddbmm, (leaf([2, 3], device), leaf([2, 2, 4], device), leaf([2, 4, 3], device)))
    assert gradcheck(ember.outer, (leaf([3], device), leaf([2], device)))


def test_diag_of_vectors_and_matrices(torch, device):
    matrix, t_matrix = pair(torch, numpy.arange(12).reshape(3, 4), device)
    vector, t_vector = pair(torch, [1.0, 2.0, 3.0], device)
    for k in (-4, -1, 0, 2, 4):
        assert_close(ember.diag(matrix, k), torch.diag(t_matrix, k))
        assert_close(matrix.t().diag(k), t_matrix.t().diag(k))  # non-contiguous
        assert_close(ember.diag(vector, k), torch.diag(t_vector, k))
    assert gradcheck(lambda x: ember.diag(x, -1), (leaf([3, 4], device),))
    assert gradcheck(lambda x: ember.diag(x, 1), (leaf([3], device),))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_matches_pytorch(torch, device, p):
    x1, t_x1 = pair(torch, RNG.standard_normal((2, 4, 3)), device)
    x2, t_x2 = pair(torch, RNG.standard_normal((1, 5, 3)), device)
    assert_close(ember.cdist(x1, x2, p), torch.cdist(t_x1, t_x2, p), rtol=1e-4, atol=1e-5)
    if p >= 1:
        assert gradcheck(lambda a, b: ember.cdist(a, b, p), (leaf([3, 2], device), leaf([2, 2], device)))


@pytest.mark.parametrize("dtype", ["float32", "int64"])
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_pytorch(torch, device, dtype, reduce, include_self):
    x, tx = pair(torch, RNG.integers(-4, 5, (4, 3)), device, dtype)
    index, t_index = pair(torch, RNG.integers(0, 4, (5, 2)), device)
    src, t_src = pair(torch, RNG.integers(-4, 5, (6, 3)), device, dtype)
    assert_close(ember.scatter_reduce(x, 0, index, src, reduce, include_self=include_self),
                 torch.scatter_reduce(tx, 0, t_index, t_src, reduce, include_self=include_self))
    assert_close(x.t().scatter_reduce(1, index.t(), src.t(), reduce, include_self=include_self),
                 tx.t().scatter_reduce(1, t_index.t(), t_src.t(), reduce, include_self=include_self))
    target = x.clone()
    target.scatter_reduce_(0, index, src, reduce, include_self=include_self)
    assert_close(target, tx.clone().scatter_reduce_(0, t_index, t_src, reduce, include_self=include_self))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_gradients(device, reduce):
    index = ember.tensor([[0, 1, 2, 0], [1, 0, 0, 2]], device=device)
    for include_self in (True, False):
        assert gradcheck(lambda x, s: ember.scatter_reduce(x, 1, index, s, reduce, include_self=include_self),
                         (leaf([2, 3], device), leaf([2, 4], device)))


@pytest.mark.filterwarnings("ignore:The reduce argument of torch.scatter")
def test_scatter_with_src_value_and_reduce(torch, device):
    x, tx = pair(torch, numpy.zeros((3, 4)), device, "float32")
    index, t_index = pair(torch, [[0, 2], [1, 0], [2, 1]], device)  # no position twice per column
    src, t_src = pair(torch, RNG.standard_normal((3, 3)), device, "float32")
    assert_close(ember.scatter(x, 0, index, src), torch.scatter(tx, 0, t_index, t_src))
    assert_close(x.scatter(1, index, 2.5), tx.scatter(1, t_index, 2.5))
    ints, t_ints = pair(torch, numpy.ones((3, 4)), device, "int64")
    assert_close(ints.scatter(1, index, 2.5), t_ints.scatter(1, t_index, 2.5))
    repeated, t_repeated = pair(torch, [[0, 0], [0, 0], [1, 0]], device)
    for reduce in ("add", "multiply"):
        assert_close(ints.clone().scatter_(0, repeated, 3, reduce=reduce),
                     t_ints.clone().scatter_(0, t_repeated, 3, reduce=reduce))
        assert_close(x.clone().fill_(2).scatter_(0, repeated, src, reduce=reduce),
                     tx.clone().fill_(2).scatter_(0, t_repeated, t_src, reduce=reduce))
    empty_index = ember.zeros(0, 4, dtype=ember.int64, device=device)
    assert_close(x.scatter(0, empty_index, src), tx)
    assert gradcheck(lambda a, s: a.scatter(0, index, s), (leaf([3, 4], device), leaf([3, 3], device)))


def test_repeat_interleave(torch, device):
    x, tx = pair(torch, numpy.arange(6.0).reshape(2, 3), device)
    counts, t_counts = pair(torch, [2, 0, 3], device)
    assert_close(ember.repeat_interleave(counts), torch.repeat_interleave(t_counts))
    assert_close(ember.repeat_interleave(x, 2), torch.repeat_interleave(tx, 2))
    assert_close(x.repeat_interleave(counts, dim=1), tx.repeat_interleave(t_counts, dim=1))
    assert_close(x.t().repeat_interleave(counts, dim=0), tx.t().repeat_interleave(t_counts, dim=0))
    assert_close(x.repeat_interleave(ember.tensor([3], device=device), dim=0),
                 tx.repeat_interleave(torch.tensor([3]), dim=0))
    assert_close(ember.repeat_interleave(ember.zeros(0, device=device), 2), torch.repeat_interleave(torch.zeros(0), 2))
    assert gradcheck(lambda a: a.repeat_interleave(ember.tensor([1, 0, 2], device=device), dim=1),
                     (leaf([2, 3], device),))


def test_meshgrid_broadcast_and_views(torch, device):
    a, ta = pair(torch, [1, 2], device)
    b, tb = pair(torch, [3, 4, 5], device)
    c, tc = pair(torch, 7, device)
    for indexing in ("ij", "xy"):
        for actual, expected in zip(ember.meshgrid(a, b, c, indexing=indexing),
                                    torch.meshgrid(ta, tb, tc, indexing=indexing)):
            assert_close(actual, expected)
        for actual, expected in zip(ember.meshgrid([a, b], indexing=indexing),
                                    torch.meshgrid([ta, tb], indexing=indexing)):
            assert_close(actual, expected)
    x, tx = pair(torch, RNG.standard_normal((2, 1)), device)
    for actual, expected in zip(ember.broadcast_tensors(x, b), torch.broadcast_tensors(tx, tb)):
        assert_close(actual, expected)
    assert tuple(ember.broadcast_shapes((2, 1), (3, 1, 4))) == tuple(torch.broadcast_shapes((2, 1), (3, 1, 4)))
    y, ty = pair(torch, numpy.arange(24.0).reshape(2, 3, 4), device)
    assert_close(ember.movedim(y, [0, 1], [2, 0]), torch.movedim(ty, [0, 1], [2, 0]))
    for dimension, size, step in ((2, 2, 1), (1, 3, 2), (0, 1, 3), (2, 0, 1)):
        assert_close(y.unfold(dimension, size, step), ty.unfold(dimension, size, step))
        assert_close(y.transpose(0, 2).unfold(dimension % 3, 1, 1), ty.transpose(0, 2).unfold(dimension % 3, 1, 1))
    unfolded = y.unfold(2, 2, 2)
    assert unfolded.storage_offset() == y.storage_offset() and unfolded.stride() == ty.unfold(2, 2, 2).stride()
    for actual, expected in zip(y.split_with_sizes([1, 0, 2], 1), ty.split_with_sizes([1, 0, 2], 1)):
        assert_close(actual, expected)
    assert gradcheck(lambda t: t.unfold(1, 2, 1) * 2, (leaf([2, 4], device),))


EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->ji", [(3, 3, 2)]),
    ("ij->", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...i,...i->...", [(3,), (2, 3)]),
    ("i...->...", [(2, 3, 4)]),
    ("i,i->", [(3,), (3,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ab,ab->ab", [(2, 1), (1, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i,i,i->i", [(3,), (3,), (3,)]),
    ("ij,ij->", [(0, 3), (0, 3)]),
    ("ij,kl->", [(2, 0), (3, 4)]),
    (" i j , j k -> i k", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES)
def test_einsum_matches_pytorch(torch, device, equation, shapes):
    operands = [pair(torch, RNG.standard_normal(shape), device) for shape in shapes]
    assert_close(ember.einsum(equation, *[e for e, _ in operands]), torch.einsum(equation, *[t for _, t in operands]),
                 rtol=1e-5, atol=1e-5)


def test_einsum_of_integers(torch, device):
    a, ta = pair(torch, RNG.integers(0, 5, (3, 2)), device)
    b, tb = pair(torch, RNG.integers(0, 5, (4, 3)), device)
    assert_close(ember.einsum("ji,kj->ik", a, b), torch.einsum("ji,kj->ik", ta, tb))


def test_einsum_sublists_non_contiguous_and_gradients(torch, device):
    a, ta = pair(torch, RNG.standard_normal((3, 2)), device)
    b, tb = pair(torch, RNG.standard_normal((4, 3)), device)
    assert_close(ember.einsum(a, [1, 0], b, [2, 1], [0, 2]), torch.einsum(ta, [1, 0], tb, [2, 1], [0, 2]))
    assert_close(ember.einsum("ij,jk->ik", [a.t(), b.t()]), torch.einsum("ij,jk->ik", [ta.t(), tb.t()]))
    assert gradcheck(lambda x, y, z: ember.einsum("bi,bij,j->b", x, y, z),
                     (leaf([2, 3], device), leaf([2, 3, 4], device), leaf([4], device)))
    assert gradcheck(lambda x: ember.einsum("iij->j", x), (leaf([2, 2, 3], device),))


@pytest.mark.parametrize("weight", [0.0, 0.1, 0.5, 0.77, 1.0, -0.2, 1.5])
def test_in_place_lerp_has_lerps_bits(weight):
    """The unrecorded in-place form takes its own two passes."""
    for dtype in (ember.float32, ember.float64, ember.bfloat16):
        a, b = ember.randn(1000).to(dtype), ember.randn(1000).to(dtype)
        x = a.clone()
        assert x.lerp_(b, weight) is x and ember.equal(x, ember.lerp(a, b, weight))
    w = ember.randn(5, requires_grad=True)
    y = w * 1
    y.lerp_(ember.ones(5), weight)
    y.sum().backward()
    assert ember.allclose(w.grad, ember.full((5,), 1 - weight))
