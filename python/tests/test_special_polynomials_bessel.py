"""The Bessel and Airy functions and the orthogonal polynomials of
ember.special against PyTorch's: values over their branches and at the
edges (0, +-1, NaN, the infinities, large arguments and degrees), dtypes,
the forms the degree takes, out= and errors."""

import math

import numpy
import pytest

import ember
from helpers import assert_close

BESSEL_FUNCTIONS = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
                    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
                    "scaled_modified_bessel_k1", "spherical_bessel_j0"]
# Each branch point of the approximations (2, 2.09, 5, 8, ...) and both sides of it.
BESSEL_EDGES = [0.0, -0.0, 1e-6, 1e-5, 0.4999, 0.5, 2.0, 2.0001, 2.09, -2.09, -2.0899, 5.0, 5.0001, -5.0, 8.0, 8.0001,
                -8.0, 8.33, 87.0, 103.9, 710.0, -710.0, 1e4, -1e4, 1e30, -1e30, math.nan, math.inf, -math.inf]
BESSEL_POINTS = numpy.concatenate([numpy.linspace(-40.0, 40.0, 161) + 0.013, numpy.geomspace(1e-4, 200.0, 40),
                                   -numpy.geomspace(1e-4, 200.0, 40), BESSEL_EDGES])


@pytest.mark.parametrize("name", BESSEL_FUNCTIONS)
@pytest.mark.parametrize("dtype, rtol, atol", [("float32", 1e-5, 1e-6), ("float64", 1e-12, 1e-14)])
def test_bessel_functions_match_pytorch(torch, name, dtype, rtol, atol):
    points = BESSEL_POINTS.astype(dtype)
    ours = getattr(ember.special, name)(ember.tensor(points))
    theirs = getattr(torch.special, name)(torch.tensor(points))
    assert_close(ours, theirs, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", BESSEL_FUNCTIONS)
def test_bessel_functions_take_integers_and_out_and_have_no_derivative(torch, name):
    ours, theirs = getattr(ember.special, name), getattr(torch.special, name)
    assert_close(ours(ember.tensor([[1, 2], [3, 0]])), theirs(torch.tensor([[1, 2], [3, 0]])))
    x = ember.tensor([0.5, 3.0], requires_grad=True)
    result = ours(x)
    assert not result.requires_grad
    with pytest.raises(RuntimeError):
        result.sum().backward()
    target = ember.empty(0, dtype=ember.float64)
    assert ours(x.detach().double(), out=target) is target
    assert_close(target, theirs(torch.tensor([0.5, 3.0], dtype=torch.float64)))
    with pytest.raises(TypeError, match=f"special_{name}\\(\\): argument 'input'"):
        ours(0.5)


def test_modified_bessel_functions_are_odd_and_even_like_pytorch(torch):
    # I1 is odd yet gives +0 at -0, K0 and K1 are NaN below 0: sign handling, not values
    points = numpy.array([-0.0, -3.0, 3.0, -12.0, 12.0])
    for name in ("modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "bessel_j1", "bessel_y1"):
        ours = getattr(ember.special, name)(ember.tensor(points)).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(points)).numpy()
        numpy.testing.assert_array_equal(numpy.signbit(ours), numpy.signbit(theirs))


CHEBYSHEV = [f"{prefix}chebyshev_polynomial_{kind}" for prefix in ("", "shifted_") for kind in "tuvw"]
POLYNOMIALS = CHEBYSHEV + ["hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
                           "legendre_polynomial_p"]
# Inside and outside [-1, 1] and [0, 1], the points PyTorch treats apart
# (+-1, 0, 1/2 and next to them), far out and infinite.
POLYNOMIAL_X = numpy.concatenate([numpy.linspace(-2.5, 2.5, 41) + 0.01,
                                  [0.0, 1.0, -1.0, 0.5, 0.999, -0.999, 1e-9, 1.0001, 60.0, -60.0, math.inf, -math.inf]])


def _grid(x, n, dtype):
    xs, ns = numpy.meshgrid(numpy.asarray(x, dtype=dtype), numpy.asarray(n, dtype=dtype), indexing="ij")
    return xs, ns


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("dtype, degrees, rtol, atol", [
    # float32 rounding, amplified by the recurrence, differs from PyTorch's fused multiply-adds
    ("float32", range(-2, 11), 2e-4, 1e-5),
    ("float64", list(range(-2, 41)) + [64, 100, 129, 300, 513], 1e-9, 1e-12),
])
def test_polynomials_match_pytorch(torch, name, dtype, degrees, rtol, atol):
    xs, ns = _grid(POLYNOMIAL_X, list(degrees), dtype)
    ours = getattr(ember.special, name)(ember.tensor(xs), ember.tensor(ns))
    theirs = getattr(torch.special, name)(torch.tensor(xs), torch.tensor(ns))
    assert_close(ours, theirs, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_degrees_convert_as_pytorch_does(torch, name):
    # truncated toward zero; negative, NaN, infinite and past-int64 degrees give 0
    degrees = [2.7, -0.5, -1.0, -7.0, math.nan, math.inf, -math.inf, 1e19, 3.0]
    xs, ns = _grid([0.3, 1.7, -2.0], degrees, "float64")
    assert_close(getattr(ember.special, name)(ember.tensor(xs), ember.tensor(ns)),
                 getattr(torch.special, name)(torch.tensor(xs), torch.tensor(ns)), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_take_numbers_and_broadcast_like_pytorch(torch, name):
    ours, theirs = getattr(ember.special, name), getattr(torch.special, name)
    float32 = {"rtol": 2e-4, "atol": 1e-5}
    x = numpy.array([[-0.7], [0.2], [1.4]], dtype="float32")
    n = numpy.array([0, 3, 9, 12])
    assert_close(ours(ember.tensor(x), ember.tensor(n)), theirs(torch.tensor(x), torch.tensor(n)), **float32)
    assert_close(ours(ember.tensor(x), 4), theirs(torch.tensor(x), 4), **float32)
    assert_close(ours(ember.tensor(x), 4.9), theirs(torch.tensor(x), 4.9), **float32)
    assert_close(ours(0.3, ember.tensor(n)), theirs(0.3, torch.tensor(n)), **float32)
    assert_close(ours(2, ember.tensor(n, dtype=ember.float64)), theirs(2, torch.tensor(n, dtype=torch.float64)))
    # a 0-dim float64 degree does not widen a float32 input; integers give the default dtype
    assert_close(ours(ember.tensor(x), ember.tensor(5.0, dtype=ember.float64)),
                 theirs(torch.tensor(x), torch.tensor(5.0, dtype=torch.float64)), **float32)
    assert_close(ours(ember.tensor([1, 2, 3]), 2), theirs(torch.tensor([1, 2, 3]), 2))
    target = ember.empty(3)
    assert ours(ember.tensor([0.1, 0.2, 0.3]), 3, out=target) is target
    assert_close(target, theirs(torch.tensor([0.1, 0.2, 0.3]), 3))


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_have_no_derivative_and_refuse_two_numbers(torch, name):
    function = getattr(ember.special, name)
    x = ember.tensor([0.25, 0.5], requires_grad=True)
    result = function(x, 3)
    assert not result.requires_grad
    with pytest.raises(RuntimeError):
        result.sum().backward()
    with pytest.raises(TypeError, match=f"special_{name}\\(\\) received an invalid combination of arguments"):
        function(0.5, 3)
    with pytest.raises(TypeError, match="invalid combination"):
        function(ember.tensor([0.5]), "3")


def test_hermite_polynomials_are_nan_past_pytorch_limits(torch):
    for name in ("hermite_polynomial_h", "hermite_polynomial_he"):
        for dtype, limit in (("float32", 128), ("float64", 512)):
            xs, ns = _grid([0.0, 0.1, -0.3], [limit - 1, limit, limit + 1, 10 ** 9], dtype)
            ours = getattr(ember.special, name)(ember.tensor(xs), ember.tensor(ns))
            theirs = getattr(torch.special, name)(torch.tensor(xs), torch.tensor(ns))
            assert_close(ours, theirs, rtol=1e-3 if dtype == "float32" else 1e-9, atol=0)
            assert bool(ours[:, -1].isnan().all())


def test_recurrences_stop_once_they_overflow(torch):
    # A billion steps would not finish: the overflowed elements stop the loop.
    xs, ns = _grid([-2.0, -3.0, -1.5, math.nan], [10 ** 9], "float64")
    for name in POLYNOMIALS:
        ours = getattr(ember.special, name)(ember.tensor(xs), ember.tensor(ns))
        theirs = getattr(torch.special, name)(torch.tensor(xs), torch.tensor(ns))
        assert_close(ours, theirs, rtol=0, atol=0)
        assert bool(ours.isnan().all())


def test_nan_input_gives_nan_where_pytorch_reads_an_unset_value(torch):
    # PyTorch's loops for these never set their result when x is NaN and n >= 2
    for name in POLYNOMIALS:
        values = getattr(ember.special, name)(ember.tensor([math.nan] * 4), ember.tensor([0, 1, 2, 7]))
        assert values[0].item() == 1.0
        assert bool(values[1:].isnan().all())
    for name in ("chebyshev_polynomial_t", "hermite_polynomial_h", "hermite_polynomial_he"):
        xs, ns = _grid([math.nan], [0, 1, 2, 3, 7, 20], "float64")
        assert_close(getattr(ember.special, name)(ember.tensor(xs), ember.tensor(ns)),
                     getattr(torch.special, name)(torch.tensor(xs), torch.tensor(ns)))
