"""The special functions composed in ember._special_functions (Bessel i0,
i0e, i1, i1e; zeta and polygamma; mvlgamma; the incomplete gamma functions;
nextafter) and masked_scatter / index_reduce, against PyTorch: values,
gradients, in-place forms and errors."""

import math

import numpy
import pytest

import ember
from helpers import assert_close, check_with_gradients

BESSEL_POINTS = [0.0, 1e-3, -0.5, 1.0, 2.5, -7.9, 8.0, 8.1, 15.0, 19.99, 20.0, 20.01, 30.0, -45.0, 80.0, 88.0, 100.0,
                 500.0, 700.0]


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
@pytest.mark.parametrize("dtype, rtol", [("float32", 2e-6), ("float64", 1e-12)])
def test_bessel_functions_match_pytorch(torch, name, dtype, rtol):
    points = numpy.array(BESSEL_POINTS, dtype=dtype)
    ours = getattr(ember.special, name)(ember.tensor(points))
    theirs = getattr(torch.special, name)(torch.tensor(points))
    assert_close(ours, theirs, rtol=rtol, atol=0)
    if name == "i0":
        assert_close(ember.tensor(points).i0(), theirs, rtol=rtol, atol=0)


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_bessel_gradients_match_pytorch_to_second_order(torch, name):
    points = numpy.array([-30.0, -3.0, -0.25, 0.0, 0.7, 5.0, 12.0, 25.0])
    check_with_gradients(torch, getattr(ember.special, name), getattr(torch.special, name), [points], rtol=1e-10,
                         atol=1e-12)
    x = ember.tensor(points).requires_grad_()
    tx = torch.tensor(points, requires_grad=True)
    (grad,) = ember.autograd.grad(getattr(ember.special, name)(x).sum(), x, create_graph=True)
    (tgrad,) = torch.autograd.grad(getattr(torch.special, name)(tx).sum(), tx, create_graph=True)
    (second,) = ember.autograd.grad(grad.sum(), x)
    (tsecond,) = torch.autograd.grad(tgrad.sum(), tx)
    assert_close(second, tsecond, rtol=1e-9, atol=1e-12)


def test_zeta_and_polygamma_match_pytorch(torch):
    s = numpy.array([1.5, 2.0, 3.0, 10.0, 1.0, 0.5, 4.0, 4.0, 30.0])
    q = numpy.array([1.0, 0.3, 5.0, 2.0, 1.0, 1.0, -1.5, -2.0, 0.7])
    assert_close(ember.special.zeta(ember.tensor(s), ember.tensor(q)),
                 torch.special.zeta(torch.tensor(s), torch.tensor(q)), rtol=1e-9, atol=0)
    x = numpy.array([0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 50.0, -0.5, -2.5])
    for n in (0, 1, 2, 3, 5, 10):
        assert_close(ember.polygamma(n, ember.tensor(x)), torch.polygamma(n, torch.tensor(x)), rtol=1e-9, atol=0)
        assert_close(ember.tensor(x).polygamma(n), torch.tensor(x).polygamma(n), rtol=1e-9, atol=0)
    poles = ember.polygamma(2, ember.tensor([0.0, -3.0]))
    assert bool(poles.isinf().all())
    check_with_gradients(torch, lambda t: ember.polygamma(2, t), lambda t: torch.polygamma(2, t),
                         [numpy.array([0.4, 1.5, 7.0])], rtol=1e-8, atol=1e-10)
    check_with_gradients(torch, lambda t: ember.special.zeta(3.0, t), lambda t: torch.special.zeta(3.0, t),
                         [numpy.array([0.4, 1.5, 7.0])], rtol=1e-8, atol=1e-10)
    with pytest.raises(RuntimeError, match="negative n"):
        ember.polygamma(-1, ember.ones(2))
    # Far below zero the direct terms are many: summed in chunks, or refused
    # past 2^24 of them, never a loop of tensor ops per term.
    far = ember.special.zeta(ember.tensor([4.0]), ember.tensor([-20000.5], dtype=ember.float64))
    assert far.tolist() == pytest.approx(torch.special.zeta(torch.tensor([4.0]), torch.tensor(
        [-20000.5], dtype=torch.float64)).tolist(), rel=1e-6)
    with pytest.raises(ValueError, match="terms of the series"):
        ember.special.zeta(ember.tensor([3.0]), ember.tensor([-1e9 + 0.5], dtype=ember.float64))


def test_mvlgamma_matches_pytorch_with_its_gradient(torch):
    points = numpy.array([2.5, 3.0, 7.0, 1.6])
    for p in (1, 2, 3):
        check_with_gradients(torch, lambda t: ember.mvlgamma(t, p), lambda t: torch.mvlgamma(t, p), [points],
                             rtol=1e-10, atol=1e-12)
        assert_close(ember.special.multigammaln(ember.tensor(points), p),
                     torch.special.multigammaln(torch.tensor(points), p), rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        ember.mvlgamma(ember.ones(2), 0)


def test_incomplete_gamma_functions_match_pytorch(torch):
    inf, nan = math.inf, math.nan
    a = numpy.array([0.5, 1.0, 2.0, 5.0, 10.0, 100.0, 0.0, 0.0, 3.0, 1e-3, 7.0, -1.0, 2.0, inf, 1.0, nan, 2.0, inf,
                     0.0])
    x = numpy.array([0.2, 1.0, 3.0, 5.0, 8.0, 120.0, 1.0, 0.0, 0.0, 0.5, 60.0, 1.0, -1.0, 1.0, inf, 1.0, nan, inf,
                     inf])
    for ours, theirs in ((ember.igamma, torch.igamma), (ember.igammac, torch.igammac),
                         (ember.special.gammainc, torch.special.gammainc),
                         (ember.special.gammaincc, torch.special.gammaincc)):
        expected = theirs(torch.tensor(a), torch.tensor(x))
        # PyTorch's asymptotic expansion for large a is good to about 1e-9
        # (a = 100, x = 120); the series here to about 1e-14.
        assert_close(ours(ember.tensor(a), ember.tensor(x)), expected, rtol=5e-9, atol=1e-300)
    lower = ember.igamma(ember.tensor(a, dtype=ember.float32), ember.tensor(x, dtype=ember.float32))
    assert_close(lower, torch.igamma(torch.tensor(a).float(), torch.tensor(x).float()), rtol=1e-5, atol=1e-30)
    check_with_gradients(torch, lambda t: ember.igammac(ember.tensor([2.5, 4.0, 0.5]), t),
                         lambda t: torch.igammac(torch.tensor([2.5, 4.0, 0.5]), t),
                         [numpy.array([1.0, 6.0, 0.3], dtype="float32")], rtol=1e-5, atol=1e-7)
    with pytest.raises(NotImplementedError, match="igamma: input"):
        ember.igamma(ember.ones(2, requires_grad=True), ember.ones(2)).sum().backward()


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
def test_nextafter_is_exact_in_every_floating_dtype(torch, dtype):
    tiny = {"float32": 1e-40, "float64": 1e-310}.get(dtype, 1e-3)
    huge = {"float32": 3e38, "float64": 1e300}.get(dtype, 6e4 if dtype == "float16" else 3e38)
    start = [0.0, -0.0, 1.0, -1.0, 1.5, 2.0, -2.0, tiny, huge, math.inf, math.nan, 0.75, 1024.0, 2.0 ** -14, 5.0]
    toward = [1.0, -1.0, 0.0, 0.0, 2.0, 1.0, -3.0, 0.0, math.inf, 0.0, 1.0, 0.5, 2000.0, 0.0, 5.0]
    ours = ember.nextafter(ember.tensor(start, dtype=getattr(ember, dtype)),
                           ember.tensor(toward, dtype=getattr(ember, dtype)))
    theirs = torch.nextafter(torch.tensor(start, dtype=getattr(torch, dtype)),
                             torch.tensor(toward, dtype=getattr(torch, dtype)))
    assert str(ours.dtype) == f"ember.{dtype}"
    assert ours.to(ember.float64).tolist() == pytest.approx(theirs.double().tolist(), rel=0, abs=0, nan_ok=True)
    with pytest.raises(NotImplementedError, match="nextafter"):
        ember.nextafter(ember.tensor([1]), ember.tensor([2]))


def test_in_place_special_methods_match_pytorch(torch):
    points = numpy.array([0.5, 2.0, 9.0])
    for method, args in (("i0_", ()), ("polygamma_", (1,)), ("mvlgamma_", (2,))):
        ours, theirs = ember.tensor(points), torch.tensor(points)
        getattr(ours, method)(*args)
        getattr(theirs, method)(*args)
        assert_close(ours, theirs, rtol=1e-9, atol=0)
    for method in ("igamma_", "igammac_", "nextafter_"):
        ours, theirs = ember.tensor(points), torch.tensor(points)
        getattr(ours, method)(ember.tensor([1.0, 1.0, 10.0]))
        getattr(theirs, method)(torch.tensor([1.0, 1.0, 10.0]))
        assert_close(ours, theirs, rtol=1e-9, atol=0)


def test_masked_scatter_matches_pytorch_with_gradients(torch):
    mask = numpy.array([[True, False, True], [False, True, True]])
    check_with_gradients(torch, lambda x, s: x.masked_scatter(ember.tensor(mask), s),
                         lambda x, s: x.masked_scatter(torch.tensor(mask), s),
                         [numpy.arange(6.0).reshape(2, 3), numpy.arange(10.0, 17.0)], grad=(True, True))
    # The mask broadcasts against the input, and the result takes both shapes.
    ours = ember.masked_scatter(ember.zeros(3), ember.tensor([[True], [False]]), ember.arange(6.0))
    assert_close(ours, torch.masked_scatter(torch.zeros(3), torch.tensor([[True], [False]]), torch.arange(6.0)))
    target = ember.zeros(2, 3)
    target.masked_scatter_(ember.tensor(mask), ember.ones(4))
    assert target.tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        ember.zeros(2, 3).masked_scatter(ember.tensor(mask), ember.ones(3))
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        ember.zeros(2, 3).masked_scatter(ember.tensor(mask).float(), ember.ones(6))
    with pytest.raises(RuntimeError, match="same dtypes"):
        ember.zeros(2, 3).masked_scatter(ember.tensor(mask), ember.ones(6, dtype=ember.float64))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_pytorch(torch, reduce, include_self):
    base = numpy.linspace(-1.0, 2.0, 12).reshape(4, 3)
    source = numpy.linspace(0.5, 3.0, 15).reshape(5, 3)
    index = [0, 2, 0, 3, 2]
    check_with_gradients(torch,
                         lambda b, s: b.index_reduce(0, ember.tensor(index), s, reduce, include_self=include_self),
                         lambda b, s: b.index_reduce(0, torch.tensor(index), s, reduce, include_self=include_self),
                         [base, source], grad=(True, reduce in ("prod", "mean")))
    ours, theirs = ember.tensor(base.T.copy()), torch.tensor(base.T.copy())
    ours.index_reduce_(1, ember.tensor(index), ember.tensor(source.T.copy()), reduce, include_self=include_self)
    theirs.index_reduce_(1, torch.tensor(index), torch.tensor(source.T.copy()), reduce, include_self=include_self)
    assert_close(ours, theirs, rtol=1e-12, atol=0)


def test_index_reduce_refuses_what_pytorch_refuses():
    x = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="prod, mean, amax or amin"):
        x.index_reduce(0, ember.tensor([0]), ember.ones(1, 3), "sum")
    with pytest.raises(RuntimeError, match="int32/int64"):
        x.index_reduce(0, ember.tensor([0.0]), ember.ones(1, 3), "prod")
    with pytest.raises(IndexError, match="vector"):
        x.index_reduce(0, ember.tensor([[0]]), ember.ones(1, 3), "prod")
    with pytest.raises(RuntimeError, match="Number of indices"):
        x.index_reduce(0, ember.tensor([0, 1]), ember.ones(1, 3), "prod")
    with pytest.raises(RuntimeError, match="must match self tensor shape"):
        x.index_reduce(0, ember.tensor([0]), ember.ones(1, 4), "prod")
    with pytest.raises(RuntimeError, match="same scalar type"):
        x.index_reduce(0, ember.tensor([0]), ember.ones(1, 3, dtype=ember.float64), "prod")
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.index_reduce(0, ember.tensor([5]), ember.ones(1, 3), "prod")


EDGE_POINTS = [-100.0, -40.0, -36.0, -35.0, -34.0, -10.0, -1.0, 0.0, 0.5, 3.0, 40.0, math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("name", ["entr", "log_ndtr", "xlog1py", "xlogy", "softmax", "log_softmax", "logsumexp",
                                  "exp2", "expm1", "log1p", "sinc", "round", "logit", "modified_bessel_i0"])
@pytest.mark.parametrize("dtype, rtol", [("float32", 1e-5), ("float64", 1e-12)])
def test_special_namespace_matches_pytorch_at_edge_values(torch, name, dtype, rtol):
    ours_x = ember.tensor(EDGE_POINTS, dtype=getattr(ember, dtype))
    theirs_x = torch.tensor(EDGE_POINTS, dtype=getattr(torch, dtype))
    if name in ("xlog1py", "xlogy"):
        ours, theirs = getattr(ember.special, name)(ours_x, ours_x), getattr(torch.special, name)(theirs_x, theirs_x)
    elif name in ("softmax", "log_softmax", "logsumexp"):
        ours, theirs = getattr(ember.special, name)(ours_x, 0), getattr(torch.special, name)(theirs_x, 0)
    else:
        ours, theirs = getattr(ember.special, name)(ours_x), getattr(torch.special, name)(theirs_x)
    numpy.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=0, equal_nan=True)


def test_ndtr_keeps_its_lower_tail(torch):
    """PyTorch's ndtr is 1 + erf(x / sqrt 2) halved, which is 0 below about
    -8.3; erfc keeps the tail."""
    middle = numpy.array([-5.0, -1.0, 0.0, 0.5, 3.0, 9.0])
    assert_close(ember.special.ndtr(ember.tensor(middle)), torch.special.ndtr(torch.tensor(middle)), rtol=1e-9,
                 atol=1e-15)
    tail = ember.special.ndtr(ember.tensor([-10.0, -30.0], dtype=ember.float64)).tolist()
    assert tail == pytest.approx([math.erfc(10 / math.sqrt(2)) / 2, math.erfc(30 / math.sqrt(2)) / 2], rel=1e-12)


@pytest.mark.parametrize("dtype, rtol", [("float32", 1e-5), ("float64", 1e-9)])
def test_ndtri_and_erfcx_match_pytorch_into_their_tails(torch, dtype, rtol):
    probabilities = [0.0, 1e-300, 1e-30, 1e-8, 0.01, 0.05, 0.3, 0.5, 0.7, 0.95, 0.999, 1 - 1e-12, 1.0, -0.1, 1.5,
                     math.nan]
    points = [-30.0, -27.0, -5.0, -1.0, 0.0, 0.5, 3.0, 10.0, 25.9, 26.1, 100.0, 1e5, math.inf, -math.inf, math.nan]
    for name, values in (("ndtri", probabilities), ("erfcx", points)):
        ours = getattr(ember.special, name)(ember.tensor(values, dtype=getattr(ember, dtype)))
        theirs = getattr(torch.special, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
        numpy.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=0, equal_nan=True)
    assert math.copysign(1.0, ember.special.ndtri(ember.tensor([0.5])).item()) == 1.0
