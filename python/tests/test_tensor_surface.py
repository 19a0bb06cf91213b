"""torch's elementwise functions, reductions, scans and shape functions that
Ember builds in Python, as functions and Tensor methods, against PyTorch:
values over edge cases, gradients, and errors."""

import numpy
import pytest

import ember
from helpers import assert_close

RNG = numpy.random.default_rng(11)
EDGES = numpy.array([0.0, -0.0, 1e-30, -1e-7, 0.5, -0.5, 1.0, -1.0, 3.0, -4.5, 25.0, -30.0, 700.0, numpy.inf,
                     -numpy.inf, numpy.nan])


def pair(torch, array, grad=False):
    return ember.tensor(array).requires_grad_(grad), torch.tensor(array, requires_grad=grad)


UNARY = ["square", "exp2", "log2", "log10", "logit", "deg2rad", "rad2deg", "sinh", "cosh", "asinh", "acosh", "atanh",
         "sinc", "frac", "fix", "sgn", "signbit", "isposinf", "isneginf", "isreal", "positive"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_match_pytorch_on_edge_values(torch, name):
    x, tx = pair(torch, EDGES)
    assert_close(getattr(ember, name)(x), getattr(torch, name)(tx), rtol=1e-12, atol=1e-300, check_dtype=True)
    assert_close(getattr(x, name)(), getattr(tx, name)(), rtol=1e-12, atol=1e-300)


SMOOTH = {"sinh": (-5, 5), "cosh": (-5, 5), "asinh": (-5, 5), "acosh": (1.1, 6), "atanh": (-0.9, 0.9),
          "logit": (0.05, 0.95), "exp2": (-4, 4), "log2": (0.1, 4), "log10": (0.1, 4), "sinc": (-3, 3)}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_unary_gradients_match_pytorch(torch, name):
    low, high = SMOOTH[name]
    x, tx = pair(torch, RNG.uniform(low, high, 40), grad=True)
    getattr(ember, name)(x).sum().backward()
    getattr(torch, name)(tx).sum().backward()
    assert_close(x.grad, tx.grad, rtol=1e-10, atol=1e-12)


BINARY = ["xlogy", "hypot", "logaddexp", "logaddexp2", "copysign", "fmax", "fmin", "float_power"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_match_pytorch_with_broadcasting(torch, name):
    a = numpy.abs(EDGES[:, None]) if name == "float_power" else EDGES[:, None]
    b = numpy.array([[0.0, -0.0, 2.0, -3.0, numpy.nan, numpy.inf]])
    x, tx = pair(torch, a)
    y, ty = pair(torch, b)
    assert_close(getattr(ember, name)(x, y), getattr(torch, name)(tx, ty), rtol=1e-12, atol=1e-300)


def test_heaviside_isclose_and_integer_gcd_lcm(torch):
    x, tx = pair(torch, numpy.array([-2.0, 0.0, 3.0, numpy.nan]))
    v, tv = pair(torch, numpy.array([0.5, 0.5, 0.5, 0.5]))
    assert_close(ember.heaviside(x, v), torch.heaviside(tx, tv))
    y, ty = pair(torch, numpy.array([-2.0 + 1e-9, 1e-9, numpy.inf, numpy.nan]))
    for equal_nan in (False, True):
        assert_close(ember.isclose(x, y, equal_nan=equal_nan), torch.isclose(tx, ty, equal_nan=equal_nan))
    a, ta = pair(torch, numpy.array([12, -18, 0, 7, 0], dtype=numpy.int64))
    b, tb = pair(torch, numpy.array([8, 27, 5, 0, 0], dtype=numpy.int64))
    assert_close(ember.gcd(a, b), torch.gcd(ta, tb))
    assert_close(ember.lcm(a, b), torch.lcm(ta, tb))
    with pytest.raises(RuntimeError, match="expected integer tensors"):
        ember.gcd(x, y)


def test_in_place_forms_write_the_tensor(torch):
    x, tx = pair(torch, RNG.uniform(0.5, 2, 6))
    assert x.log2_() is x
    tx.log2_()
    assert_close(x, tx)
    x.clamp_min_(0.3), tx.clamp_min_(0.3)
    assert_close(x, tx)
    # Inside a graph, the in-place form differentiates as the function does.
    leaf, tleaf = pair(torch, RNG.uniform(-2, 2, 5), grad=True)
    y, ty = leaf * 2, tleaf * 2
    y.sinh_(), ty.sinh_()
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    assert_close(leaf.grad, tleaf.grad, rtol=1e-10)


def test_reductions_and_scans_match_pytorch(torch):
    array = RNG.standard_normal((4, 5))
    array[1, 2] = numpy.nan
    x, tx = pair(torch, array)
    assert_close(ember.nansum(x), torch.nansum(tx))
    assert_close(ember.nanmean(x, 1), torch.nanmean(tx, 1))
    mn, mx = ember.aminmax(x[0])
    tmn, tmx = torch.aminmax(tx[0])
    assert_close(mn, tmn), assert_close(mx, tmx)
    assert_close(ember.trace(x[:, :4]), torch.trace(tx[:, :4]))
    for offset, dims in ((0, (0, 1)), (1, (0, 1)), (-2, (1, 0)), (3, (0, 1))):
        assert_close(x.diagonal(offset, *dims), tx.diagonal(offset, *dims))
    clean, tclean = pair(torch, RNG.standard_normal((3, 6)), grad=True)
    assert_close(clean.cumprod(1), tclean.cumprod(1).detach(), rtol=1e-12)
    clean.cumprod(1).sum().backward()
    tclean.cumprod(1).sum().backward()
    assert_close(clean.grad, tclean.grad, rtol=1e-10)
    assert_close(ember.logcumsumexp(x[2:], 1), torch.logcumsumexp(tx[2:], 1), rtol=1e-12)
    ties = numpy.array([[1.0, 3.0, 3.0, 2.0, numpy.nan, 5.0], [2.0, 1.0, 1.0, 0.0, 4.0, 0.0]])
    y, ty = pair(torch, ties)
    for name in ("cummax", "cummin"):
        values, indices = getattr(ember, name)(y, 1)
        tvalues, tindices = getattr(torch, name)(ty, 1)
        assert_close(values, tvalues), assert_close(indices, tindices)
    assert ember.allclose(x[0], x[0] + 1e-9) and not ember.allclose(x[0], x[0] + 1)
    assert ember.equal(x[0], x[0].clone()) and not ember.equal(x[0], x[0][:3])
    assert_close(ember.dist(x[0], x[3], 3), torch.dist(tx[0], tx[3], 3))


def test_shape_functions_match_pytorch(torch):
    array = RNG.standard_normal((2, 3, 4))
    x, tx = pair(torch, array)
    cases = [("tile", ((2, 1, 1, 2),)), ("ravel", ()), ("swapdims", (0, 2)), ("swapaxes", (1, 2)),
             ("unflatten", (2, (2, 2))), ("diff", ()), ("rot90", (1, (1, 2))), ("rot90", (3, (0, 2))),
             ("flipud", ()), ("fliplr", ())]
    for name, args in cases:
        assert_close(getattr(ember, name)(x, *args), getattr(torch, name)(tx, *args))
        assert_close(getattr(x, name)(*args), getattr(tx, name)(*args))
    for name, arg in (("tensor_split", 3), ("tensor_split", [1, -1]), ("hsplit", 3), ("vsplit", [1]),
                      ("dsplit", 2)):
        ours, theirs = getattr(ember, name)(x, arg), getattr(torch, name)(tx, arg)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_close(a, b)
    assert_close(ember.diff(x, 2, 1, prepend=x[:, :1]), torch.diff(tx, 2, 1, prepend=tx[:, :1]))
    index = numpy.array([[[0], [2], [1]], [[3], [0], [0]]])
    i, ti = pair(torch, index)
    assert_close(ember.take_along_dim(x, i, 2), torch.take_along_dim(tx, ti, 2))
    assert_close(ember.take(x, i), torch.take(tx, ti))
    for t in (ember.tensor(2.0), ember.ones(3), ember.ones(2, 2)):
        assert tuple(ember.atleast_3d(t).shape) == tuple(torch.atleast_3d(torch.tensor(t.numpy())).shape)


def test_products_match_pytorch_with_gradients(torch):
    a, ta = pair(torch, RNG.standard_normal((2, 3)), grad=True)
    b, tb = pair(torch, RNG.standard_normal((3, 2)), grad=True)
    assert_close(ember.kron(a, b), torch.kron(ta, tb).detach())
    ember.kron(a, b).sum().backward()
    torch.kron(ta, tb).sum().backward()
    assert_close(a.grad, ta.grad), assert_close(b.grad, tb.grad)
    u, tu = pair(torch, RNG.standard_normal(3))
    v, tv = pair(torch, RNG.standard_normal(3))
    assert_close(ember.dot(u, v), torch.dot(tu, tv))
    assert_close(ember.inner(a.detach(), b.detach().transpose(0, 1)), torch.inner(ta.detach(), tb.detach().T))
    assert_close(ember.mv(a.detach(), u), torch.mv(ta.detach(), tu))
    m, tm = pair(torch, RNG.standard_normal((4, 3)))
    n, tn = pair(torch, RNG.standard_normal((4, 3)))
    assert_close(ember.cross(m, n, dim=1), torch.cross(tm, tn, dim=1))
    with pytest.raises(RuntimeError, match="1D tensors expected"):
        ember.dot(a, b)
    with pytest.raises(RuntimeError, match="must have length 3"):
        ember.cross(b, b, dim=1)


def test_aliases_are_the_same_functions():
    x = ember.tensor([-1.0, 2.0])
    assert ember.absolute(x).tolist() == [1.0, 2.0]
    assert ember.greater(x, 0).tolist() == [False, True] and x.less_equal(0).tolist() == [True, False]
    assert ember.clip(x, 0, 1).tolist() == [0.0, 1.0]


def test_stacks_indices_and_block_matrices_match_pytorch(torch):
    a, ta = pair(torch, RNG.standard_normal(3))
    b, tb = pair(torch, RNG.standard_normal(3))
    m, tm = pair(torch, RNG.standard_normal((2, 3)))
    for name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
        assert_close(getattr(ember, name)([a, b]), getattr(torch, name)([ta, tb]))
    assert_close(ember.concatenate([m, m]), torch.concatenate([tm, tm]))
    for offset in (0, 1, -1):
        assert_close(ember.tril_indices(3, 4, offset), torch.tril_indices(3, 4, offset))
        assert_close(ember.triu_indices(4, 3, offset), torch.triu_indices(4, 3, offset))
    assert_close(ember.cartesian_prod(a, b), torch.cartesian_prod(ta, tb))
    for r, replace in ((2, False), (3, False), (2, True)):
        assert_close(ember.combinations(a, r, replace), torch.combinations(ta, r, replace))
    assert_close(ember.block_diag(m, a, ember.tensor(2.0)), torch.block_diag(tm, ta, torch.tensor(2.0)))
    g, tg = pair(torch, RNG.standard_normal((2, 3)), grad=True)
    for offset in (0, 1, -2):
        ours, theirs = ember.diag_embed(g, offset), torch.diag_embed(tg, offset)
        assert_close(ours, theirs.detach())
    ember.diag_embed(g, 1).pow(2).sum().backward()
    torch.diag_embed(tg, 1).pow(2).sum().backward()
    assert_close(g.grad, tg.grad)
    assert_close(ember.diagflat(m), torch.diagflat(tm))


def test_order_statistics_and_moments_match_pytorch(torch):
    array = RNG.standard_normal((4, 7))
    x, tx = pair(torch, array)
    assert_close(ember.median(x), torch.median(tx))
    for keepdim in (False, True):
        ours, theirs = ember.median(x, 1, keepdim), torch.median(tx, 1, keepdim)
        assert_close(ours.values, theirs.values), assert_close(ours.indices, theirs.indices)
        ours, theirs = ember.kthvalue(x, 3, 1, keepdim), torch.kthvalue(tx, 3, 1, keepdim)
        assert_close(ours.values, theirs.values), assert_close(ours.indices, theirs.indices)
    for interpolation in ("linear", "lower", "higher", "nearest", "midpoint"):
        assert_close(ember.quantile(x, 0.3, interpolation=interpolation),
                     torch.quantile(tx, 0.3, interpolation=interpolation))
        q, tq = pair(torch, numpy.array([0.0, 0.25, 0.5, 1.0]))
        for dim, keepdim in ((1, False), (0, True), (None, True)):
            assert_close(ember.quantile(x, q, dim, keepdim, interpolation=interpolation),
                         torch.quantile(tx, tq, dim, keepdim, interpolation=interpolation))
    with pytest.raises(RuntimeError, match="in the range"):
        ember.quantile(x, 1.5)
    for name in ("std_mean", "var_mean"):
        for args in ((), (1,), ((0, 1),)):
            ours, theirs = getattr(ember, name)(x, *args), getattr(torch, name)(tx, *args)
            assert_close(ours[0], theirs[0]), assert_close(ours[1], theirs[1])
    assert_close(ember.cov(x), torch.cov(tx))
    assert_close(ember.corrcoef(x), torch.corrcoef(tx))
    assert_close(ember.trapezoid(x), torch.trapezoid(tx))
    spacing, tspacing = pair(torch, numpy.cumsum(RNG.uniform(0.1, 1, 7)))
    assert_close(ember.trapezoid(x, spacing), torch.trapezoid(tx, tspacing))
    assert_close(ember.msort(x), torch.msort(tx))


def test_matrix_and_pointwise_products_match_pytorch(torch):
    m, tm = pair(torch, RNG.standard_normal((3, 3)))
    v, tv = pair(torch, RNG.standard_normal(3))
    assert_close(ember.addmv(v, m, v, beta=0.5, alpha=2), torch.addmv(tv, tm, tv, beta=0.5, alpha=2))
    assert_close(ember.addr(m, v, v, alpha=3), torch.addr(tm, tv, tv, alpha=3))
    for n in (0, 1, 5, -2):
        assert_close(ember.matrix_power(m, n), torch.linalg.matrix_power(tm, n), rtol=1e-9)
    assert_close(ember.chain_matmul(m, m, m), torch.linalg.multi_dot([tm, tm, tm]))
    assert_close(m.addcmul(m, m, value=0.5), tm.addcmul(tm, tm, value=0.5))
    assert_close(m.addcdiv(m, m + 5, value=2), tm.addcdiv(tm, tm + 5, value=2))
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        ember.addcdiv(ember.ones(2), ember.ones(2, dtype=ember.int64), ember.ones(2, dtype=ember.int64))


def test_index_functions_match_pytorch(torch):
    x, tx = pair(torch, RNG.standard_normal((4, 3)))
    source, tsource = pair(torch, RNG.standard_normal((2, 3)))
    index, tindex = pair(torch, numpy.array([3, 1]))
    assert_close(x.index_add(0, index, source, alpha=2), tx.index_add(0, tindex, tsource, alpha=2))
    assert_close(x.index_copy(0, index, source), tx.index_copy(0, tindex, tsource))
    assert_close(x.index_fill(1, index[1:], -7.0), tx.index_fill(1, tindex[1:], -7.0))
    y, ty = x.clone(), tx.clone()
    y.index_add_(0, index, source), ty.index_add_(0, tindex, tsource)
    assert_close(y, ty)
    mask, tmask = pair(torch, numpy.array([True, False, True]))
    assert_close(ember.masked_select(x, mask), torch.masked_select(tx, tmask))
    assert_close(ember.argwhere(x > 0), torch.argwhere(tx > 0))
    assert_close(ember.isin(index, ember.tensor([1, 2])), torch.isin(tindex, torch.tensor([1, 2])))
    assert_close(ember.isin(index, [1, 2], invert=True), torch.isin(tindex, torch.tensor([1, 2]), invert=True))
