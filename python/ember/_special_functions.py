"""Special functions of torch and torch.special composed from Ember's
elementwise ops: the modified Bessel functions i0, i0e, i1 and i1e, the
Hurwitz zeta function and polygamma, the multivariate log-gamma, the
regularized incomplete gamma functions and nextafter."""

import math
from fractions import Fraction

from . import _C
from ._C import Tensor
from ._elementwise_math import _floating
from ._factories import arange, full, full_like, ones_like, zeros_like
from .autograd import Function

# Note [Special functions from series]
# Each function is a convergent or asymptotic series written as tensor ops,
# so every device with the elementwise primitives serves it. The series run
# in float64 and the result is rounded to the argument's dtype, so float32
# results are within about an ulp (PyTorch's Cephes kernels, in float32, are
# within a few). A series whose length depends on the values (the incomplete
# gamma functions) adds terms in rounds and stops after the round in which no
# term changed a sum it is used for: one host read per round. Derivatives are
# the functions' own (i0' = i1, polygamma(n)' = polygamma(n + 1), ...)
# through autograd Functions built from these same functions, so gradients of
# any order are those of the function, not of a truncated series.

_BESSEL_SERIES_LIMIT = 20.0  # |x| up to it: the power series; beyond: the asymptotic one


def _as_tensor(value, like):
    if isinstance(value, Tensor):
        return value
    return full([], float(value), dtype=like.dtype if like.dtype.is_floating_point else _C.get_default_dtype(),
                   device=like.device)


def _bessel_i(x, order, scaled):
    """I_order(x), order 0 or 1, times exp(-|x|) when scaled; x float64."""
    magnitude = x.abs()
    small = magnitude.clamp(max=_BESSEL_SERIES_LIMIT)
    # sum over k of (x/2)^(2k + order) / (k! (k + order)!)
    quarter_square = small * small / 4
    term = small / 2 if order == 1 else ones_like(small)
    series = term
    for k in range(1, 50):
        term = term * quarter_square / (k * (k + order))
        series = series + term
    if scaled:
        series = series * (-small).exp()
    # exp(x) / sqrt(2 pi x) times the sum over k of
    # (-1)^k prod_{j <= k} (4 order^2 - (2j - 1)^2) / (k! (8x)^k)
    large = magnitude.clamp(min=_BESSEL_SERIES_LIMIT)
    term = ones_like(large)
    asymptotic = term
    for k in range(1, 40):
        term = term * (-(4 * order * order - (2 * k - 1) ** 2) / (8 * k)) / large
        asymptotic = asymptotic + term
    asymptotic = asymptotic / (2 * math.pi * large).sqrt()
    if not scaled:
        asymptotic = asymptotic * large.exp()
    result = _C.where(magnitude <= _BESSEL_SERIES_LIMIT, series, asymptotic)
    return result * x.sign() if order == 1 else result


def _evaluate(function, x):
    """function(x in float64) rounded to x's (floating) dtype."""
    return function(x.to(_C.float64)).to(x.dtype)


def _over_x_at_zero_half(value, x):
    """value / x, and 1/2 where x is 0 (the limit of I1(x) / x there)."""
    safe = _C.where(x == 0, 1.0, x)
    return _C.where(x == 0, 0.5, value / safe)


def _i1_derivative(x):
    # I1' = I0 - I1 / x, which is 1 - 1/2 at 0
    return i0(x) - _over_x_at_zero_half(i1(x), x)


def _i1e_derivative(x):
    scaled_i1 = i1e(x)
    return i0e(x) - scaled_i1 * x.sign() - _over_x_at_zero_half(scaled_i1, x)


def _bessel_function(name, order, scaled, derivative):
    """The autograd Function of one of i0, i0e, i1, i1e: the series forward,
    `derivative(x)` (made of these functions) backward."""

    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _evaluate(lambda v: _bessel_i(v, order, scaled), x)

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * derivative(x)

    return type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


_I0 = _bessel_function("I0", 0, False, lambda x: i1(x))
_I0e = _bessel_function("I0e", 0, True, lambda x: i1e(x) - x.sign() * i0e(x))
_I1 = _bessel_function("I1", 1, False, _i1_derivative)
_I1e = _bessel_function("I1e", 1, True, _i1e_derivative)


def i0(input):
    return _I0.apply(_floating(input))


def i0e(input):
    return _I0e.apply(_floating(input))


def i1(input):
    return _I1.apply(_floating(input))


def i1e(input):
    return _I1e.apply(_floating(input))


# B_2j / (2j)! for j = 1..12: the Euler-Maclaurin corrections of zeta.
_BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
              Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510), Fraction(43867, 798),
              Fraction(-174611, 330), Fraction(854513, 138), Fraction(-236364091, 2730)]
_EULER_MACLAURIN = [float(b / math.factorial(2 * j + 2)) for j, b in enumerate(_BERNOULLI)]


_MOST_DIRECT_TERMS = 1 << 24
_DIRECT_CHUNK_ELEMENTS = 1 << 22


def _direct_term_count(s, q):
    """How many terms zeta sums directly: enough that q + N is at least
    max(9, s) for every finite s and q (infinite and NaN ones take 9)."""
    if s.numel() == 0:
        return 9
    start = max(9.0, float(s.nan_to_num(9.0, 9.0, 9.0).max().item()))
    lowest = float(q.nan_to_num(start, start, start).min().item())
    count = max(9, math.ceil(start - min(lowest, start)))
    if count > _MOST_DIRECT_TERMS:
        raise ValueError(f"zeta: s up to {start} with q down to {lowest} needs {count} terms of the series, more "
                         f"than the {_MOST_DIRECT_TERMS} it sums")
    return count


def _direct_terms(s, q, count):
    """The sum over k < count of (q + k)^-s, the k laid along a new last dim
    in chunks that keep each temporary at a few million elements."""
    total = zeros_like(q)
    chunk = max(1, min(count, _DIRECT_CHUNK_ELEMENTS // max(q.numel(), 1)))
    exponent = -s.unsqueeze(-1)
    for first in range(0, count, chunk):
        k = arange(first, min(count, first + chunk), dtype=_C.float64, device=q.device)
        total = total + (q.unsqueeze(-1) + k).pow(exponent).sum(-1)
    return total


def _hurwitz_zeta(s, q):
    """sum over k >= 0 of (q + k)^-s, float64 tensors of one shape: the first
    terms summed directly until q + N is at least max(9, s), the rest by
    Euler-Maclaurin."""
    direct = _direct_term_count(s, q)
    total = _direct_terms(s, q, direct)
    w = q + direct
    tail = w.pow(-s)
    total = total + w * tail / (s - 1) + tail / 2
    rising = ones_like(s)
    power = tail
    for j, coefficient in enumerate(_EULER_MACLAURIN):
        rising = rising * (s + 2 * j) if j == 0 else rising * (s + 2 * j - 1) * (s + 2 * j)
        power = power / w if j == 0 else power / (w * w)
        total = total + coefficient * rising * power
    nan, inf = float("nan"), float("inf")
    q_is_pole = (q <= 0) & (q == q.floor())
    undefined = (s < 1) | ((q <= 0) & (s != s.floor()))
    total = _C.where(q_is_pole, inf, total)
    total = _C.where(undefined, nan, total)
    return _C.where(s == 1, inf, total)


class _Zeta(Function):
    @staticmethod
    def forward(ctx, s, q):
        ctx.save_for_backward(s, q)
        dtype = s.dtype
        return _hurwitz_zeta(s.to(_C.float64), q.to(_C.float64)).to(dtype)

    @staticmethod
    def backward(ctx, grad):
        s, q = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'zeta: input' is not implemented.")
        return None, grad * -s * zeta(s + 1, q)


def _broadcast_floating(op, input, other):
    from ._shape_ops import broadcast_tensors
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{op}(): expected at least one tensor argument")
    anchor = input if isinstance(input, Tensor) else other
    a, b = _as_tensor(input, anchor), _as_tensor(other, anchor)
    dtype = _C.promote_types(_floating(a).dtype, _floating(b).dtype)
    return broadcast_tensors(a.to(dtype), b.to(dtype))


def zeta(input, other):
    """The Hurwitz zeta function: the sum over k >= 0 of (other + k)^-input."""
    s, q = _broadcast_floating("zeta", input, other)
    return _Zeta.apply(s, q)


class _Polygamma(Function):
    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        s = full_like(x, float(n + 1), dtype=_C.float64)
        # psi^(n)(x) = (-1)^(n + 1) n! zeta(n + 1, x)
        scale = (-1) ** (n + 1) * math.factorial(n)
        return (_hurwitz_zeta(s, x.to(_C.float64)) * float(scale)).to(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * polygamma(ctx.n + 1, x), None


def polygamma(n, input):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _floating(input)
    return x.digamma() if n == 0 else _Polygamma.apply(x, n)


def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension p: the sum of
    lgamma(x - i / 2) for i < p, plus p (p - 1) / 4 log(pi)."""
    if not isinstance(p, int) or p < 1:
        raise RuntimeError(f"p has to be greater than or equal to 1, got {p}")
    x = _floating(input)
    total = x.lgamma()
    for i in range(1, p):
        total = total + (x - i / 2).lgamma()
    return total + p * (p - 1) / 4 * math.log(math.pi)


def _series_rounds(step, state, used, limit=4000):
    """Applies step to state in rounds of 16 until a round leaves every sum
    it is used for unchanged (Note [Special functions from series])."""
    for _ in range(0, limit, 16):
        changed = None
        for _ in range(16):
            state, moved = step(state)
            changed = moved if changed is None else changed | moved
        if not bool((changed & used).any().item()):
            break
    return state


def _incomplete_gamma(a, x):
    """(P, Q), the regularized lower and upper incomplete gamma functions, of
    float64 tensors of one shape: the power series of P where x < a + 1, the
    continued fraction of Q elsewhere, each the complement of the other."""
    valid = (a >= 0) & (x >= 0)
    finite = valid & a.isfinite() & x.isfinite()
    use_series = finite & (x < a + 1)
    use_fraction = finite & ~use_series
    safe_a = _C.where(finite, a, 1.0)
    # P = x^a e^-x / Gamma(a + 1) times the sum over n of x^n / ((a + 1) ... (a + n))
    series_x = _C.where(use_series, x, 0.0)

    def series_step(state):
        n, term, total = state
        term = term * series_x / (safe_a + n)
        updated = total + term
        return (n + 1, term, updated), updated != total

    ones = ones_like(safe_a)
    _, _, total = _series_rounds(series_step, (1, ones, ones), use_series)
    lower = total * (safe_a * series_x.log() - series_x - (safe_a + 1).lgamma()).exp()
    lower = _C.where(series_x == 0, 0.0, lower)
    # Q = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)), by Lentz's method
    fraction_x = _C.where(use_fraction, x, safe_a + 1)
    tiny = 1e-300
    b = fraction_x + 1 - safe_a
    c = full_like(b, 1 / tiny)
    d = 1 / b

    def fraction_step(state):
        i, b, c, d, h = state
        coefficient = -i * (i - safe_a)
        b = b + 2
        d = coefficient * d + b
        d = _C.where(d.abs() < tiny, tiny, d)
        c = b + coefficient / c
        c = _C.where(c.abs() < tiny, tiny, c)
        d = 1 / d
        updated = h * (d * c)
        return (i + 1, b, c, d, updated), updated != h

    _, _, _, _, h = _series_rounds(fraction_step, (1, b, c, d, d), use_fraction)
    upper = h * (safe_a * fraction_x.log() - fraction_x - safe_a.lgamma()).exp()
    lower = _C.where(use_series, lower, 1 - upper)
    upper = _C.where(use_series, 1 - lower, upper)
    # Gamma(0) is infinite: P(0, x) = 1 and Q(0, x) = 0 for x > 0; P(0, 0)
    # and Q(0, 0) are undefined.
    # And at the infinities: P(a, inf) = 1, P(inf, x) = 0; P(inf, inf) is undefined.
    all_below = ((a == 0) & (x > 0)) | (x.isinf() & a.isfinite())
    none_below = a.isinf() & x.isfinite()
    lower = _C.where(all_below, 1.0, _C.where(none_below, 0.0, lower))
    upper = _C.where(all_below, 0.0, _C.where(none_below, 1.0, upper))
    defined = valid & ((a > 0) | (x > 0)) & ~(a.isinf() & x.isinf())
    nan = float("nan")
    return _C.where(defined, lower, nan), _C.where(defined, upper, nan)


class _IncompleteGamma(Function):
    @staticmethod
    def forward(ctx, a, x, upper):
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        lower_value, upper_value = _incomplete_gamma(a.to(_C.float64), x.to(_C.float64))
        return (upper_value if upper else lower_value).to(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            name = "igammac" if ctx.upper else "igamma"
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        # dP/dx = x^(a - 1) e^-x / Gamma(a), and dQ/dx its negative
        density = ((a - 1) * x.log() - x - a.lgamma()).exp()
        return None, grad * (-density if ctx.upper else density), None


def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other)."""
    a, x = _broadcast_floating("igamma", input, other)
    return _IncompleteGamma.apply(a, x, False)


def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other)."""
    a, x = _broadcast_floating("igammac", input, other)
    return _IncompleteGamma.apply(a, x, True)


def nextafter(input, other):
    """The next value after input in its dtype, toward other."""
    from ._type_info import finfo
    from .autograd import no_grad
    x, y = _broadcast_floating("nextafter", input, other)
    for operand in (input, other):
        if isinstance(operand, Tensor) and not operand.dtype.is_floating_point:
            raise NotImplementedError(f"nextafter is not implemented for '{str(operand.dtype).removeprefix('ember.')}'")
    info = finfo(x.dtype)
    mantissa_bits = round(-math.log2(info.eps))
    lowest_exponent = round(math.log2(info.tiny))
    with no_grad():
        xd, yd = x.to(_C.float64), y.to(_C.float64)
        magnitude = xd.abs()
        two = full_like(xd, 2.0)
        exponent = magnitude.clamp(min=info.tiny, max=info.max).log2().floor()
        # log2 may round across a power of two: settle the exponent exactly.
        exponent = _C.where(two.pow(exponent) > magnitude, exponent - 1, exponent)
        exponent = _C.where(two.pow(exponent + 1) <= magnitude, exponent + 1, exponent)
        exponent = exponent.clamp(min=lowest_exponent)
        spacing = two.pow(exponent - mantissa_bits)
        # Stepping toward zero from a power of two crosses into the binade below.
        shrinking = ((yd > xd) & (xd < 0)) | ((yd < xd) & (xd > 0))
        at_power = (magnitude == two.pow(exponent)) & (exponent > lowest_exponent)
        step = _C.where(shrinking & at_power, spacing / 2, spacing)
        result = _C.where(yd > xd, xd + step, xd - step)
        smallest = 2.0 ** (lowest_exponent - mantissa_bits)
        result = _C.where(xd == 0, full_like(xd, smallest) * (yd > 0).to(_C.float64).mul(2).sub(1), result)
        result = _C.where(xd.isinf(), xd.sign() * info.max, result)
        result = _C.where(xd == yd, yd, result)
        result = _C.where((xd != xd) | (yd != yd), xd + yd, result)
        return result.to(x.dtype)


def _tensor_polygamma(self, n):
    return polygamma(n, self)


def _install():
    from ._scatter import in_place_method
    for name in ("i0", "igamma", "igammac", "mvlgamma", "nextafter"):
        setattr(Tensor, name, globals()[name])
        setattr(Tensor, name + "_", in_place_method(globals()[name]))
    Tensor.polygamma = _tensor_polygamma
    Tensor.polygamma_ = in_place_method(_tensor_polygamma, "polygamma")


_install()
