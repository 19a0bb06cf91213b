"""torch.special: the special functions among Ember's elementwise ops and
those composed in _special_functions, _bessel_functions and
_orthogonal_polynomials, under the names torch.special gives them, and the
few that are short compositions of those."""

import math

from . import _C
from ._C import digamma, erf, erfc, erfinv, expm1, log1p, sigmoid as expit  # noqa: F401  (re-exported)
from ._elementwise_math import round  # noqa: F401,A004  (re-exported, with decimals=)
from ._C import digamma as psi, lgamma as gammaln  # noqa: F401
from ._elementwise_math import _floating
from ._elementwise_math import exp2, logit, sinc, xlogy  # noqa: F401
from ._factories import ones_like
from .nn import functional as _functional
from ._special_functions import i0, i0e, i1, i1e, polygamma, zeta  # noqa: F401
from ._bessel_functions import modified_bessel_i0, modified_bessel_i1  # noqa: F401  (out= from _out_arguments)
from . import _bessel_functions as _bessels, _orthogonal_polynomials as _polynomials
from ._out_arguments import with_out
from ._special_functions import igamma as gammainc, igammac as gammaincc, mvlgamma as multigammaln  # noqa: F401

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln",
           "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri",
           "polygamma", "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

# With PyTorch's out= (the older functions get it from _out_arguments' list).
(airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0,
 scaled_modified_bessel_k1, spherical_bessel_j0, chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,
 chebyshev_polynomial_w, shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
 shifted_chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he, laguerre_polynomial_l,
 legendre_polynomial_p) = (with_out(function, function.__name__) for function in (
    _bessels.airy_ai, _bessels.bessel_j0, _bessels.bessel_j1, _bessels.bessel_y0, _bessels.bessel_y1,
    _bessels.modified_bessel_k0, _bessels.modified_bessel_k1, _bessels.scaled_modified_bessel_k0,
    _bessels.scaled_modified_bessel_k1, _bessels.spherical_bessel_j0, _polynomials.chebyshev_polynomial_t,
    _polynomials.chebyshev_polynomial_u, _polynomials.chebyshev_polynomial_v, _polynomials.chebyshev_polynomial_w,
    _polynomials.shifted_chebyshev_polynomial_t, _polynomials.shifted_chebyshev_polynomial_u,
    _polynomials.shifted_chebyshev_polynomial_v, _polynomials.shifted_chebyshev_polynomial_w,
    _polynomials.hermite_polynomial_h, _polynomials.hermite_polynomial_he, _polynomials.laguerre_polynomial_l,
    _polynomials.legendre_polynomial_p))

_SQRT_HALF = math.sqrt(0.5)
_LOG_SQRT_TWO_PI = 0.5 * math.log(2 * math.pi)
_LOG_NDTR_TAIL = -35.0  # below it, erfc underflows in float64: the asymptotic series
_ERFCX_TAIL = 26.0  # above it, exp(x^2) overflows in float64: the asymptotic series


def _alternating_double_factorials(u):
    """1 - u + 3u^2 - 15u^3 + ...: the sum of (2k - 1)!! (-u)^k for k <= 6, the
    asymptotic series of the normal tail (u = 1/x^2) and of erfc (u = 1/(2x^2))."""
    term, series = ones_like(u), ones_like(u)
    for k in range(1, 7):
        term = term * -(2 * k - 1) * u
        series = series + term
    return series


def entr(input):
    """-x log(x): 0 at 0, -inf below it."""
    x = _floating(input)
    positive = x > 0
    value = -x * _C.where(positive, x, 1.0).log()
    return _C.where(positive, value, _C.where(x == 0, 0.0, _C.where(x < 0, -math.inf, x)))


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0 (unless other is NaN)."""
    x, y = _floating(input), _floating(other)
    value = _C.where(x == 0, 0.0, x * _C.where(x == 0, 0.0, y).log1p())
    return _C.where(y != y, y, value)


def ndtr(input):
    """The standard normal distribution function."""
    x = _floating(input)
    return (-x * _SQRT_HALF).erfc() / 2


def log_ndtr(input):
    """log(ndtr(x)), in float64 and, far in the lower tail, by the asymptotic
    series of the Mills ratio (where erfc would underflow)."""
    x = _floating(input)
    wide = x.to(_C.float64)
    near = (-wide.clamp(min=_LOG_NDTR_TAIL) * _SQRT_HALF).erfc().div(2).log()
    far = wide.clamp(max=_LOG_NDTR_TAIL)
    series = _alternating_double_factorials(1 / (far * far))
    tail = -far * far / 2 - (-far).log() - _LOG_SQRT_TWO_PI + series.log()
    return _C.where(wide < _LOG_NDTR_TAIL, tail, near).to(x.dtype)


def ndtri(input):
    """The inverse of ndtr: x with ndtr(x) = p, by Newton's method on
    log_ndtr (whose slope stays moderate far into both tails), in float64,
    from sqrt(2) erfinv(2p - 1) in the middle and the tails' leading term
    -sqrt(-2 log p) outside it."""
    p = _floating(input)
    wide = p.to(_C.float64)
    inside = (wide > 0) & (wide < 1)
    q = _C.where(inside, wide, 0.5)
    lower = q < 0.5
    tail = _C.where(lower, q, 1 - q)  # Newton runs on the lower tail, by symmetry
    middle = (tail > 0.05)
    start = _C.where(middle, math.sqrt(2) * (2 * tail - 1).erfinv(), -(-2 * tail.log()).sqrt())
    x, log_target = start, tail.log()
    for _ in range(8):
        log_cdf = log_ndtr(x)
        # d log ndtr / dx = phi(x) / ndtr(x)
        slope = (-x * x / 2 - _LOG_SQRT_TWO_PI - log_cdf).exp()
        x = x - (log_cdf - log_target) / slope
    x = _C.where(lower, x, -x) + 0.0  # +0 at p = 1/2, as PyTorch gives
    x = _C.where(wide == 0, -math.inf, _C.where(wide == 1, math.inf, _C.where(inside, x, math.nan)))
    return x.to(p.dtype)


def erfcx(input):
    """exp(x^2) erfc(x), in float64, by its asymptotic series where exp(x^2)
    would overflow."""
    x = _floating(input)
    wide = x.to(_C.float64)
    near = wide.clamp(max=_ERFCX_TAIL)
    direct = (near * near).exp() * near.erfc()
    far = wide.clamp(min=_ERFCX_TAIL)
    asymptotic = _alternating_double_factorials(1 / (2 * far * far)) / (far * math.sqrt(math.pi))
    return _C.where(wide > _ERFCX_TAIL, asymptotic, direct).to(x.dtype)


def softmax(input, dim, *, dtype=None):
    return _functional.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _functional.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):
    return input.logsumexp(dim, keepdim)
