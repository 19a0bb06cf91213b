"""Elementwise functions of torch that Ember builds from its primitives
(exp, log, log1p, expm1, sqrt, where, ...), differentiable through them,
and torch's aliases of existing ones."""

import math
import numbers
from collections import namedtuple

from . import _C
from ._C import Tensor
from ._dtype_names import dtype_name as _dtype_name

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _floating(x):
    return x if x.dtype.is_floating_point else x.to(_C.get_default_dtype())


_clamp_to_scalars = Tensor.clamp
_clamp_to_scalars_ = Tensor.clamp_


def _clamp_to_tensors(input, min, max):
    """clamp with a tensor bound (broadcast with the input), as PyTorch's:
    the gradient reaches the input where min <= x <= max and a bound where
    x passes it, NaN stays NaN, and min > max gives max."""
    # A NaN stays NaN and, as in PyTorch, passes no gradient on.
    result = _C.where(input != input, input.detach(), input)
    if min is not None:
        result = _C.where(input < min, min, result)
    if max is not None:
        result = _C.where(result > max, max, result)
    return result


def clamp(input, min=None, max=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_to_tensors(input, min, max)
    return _clamp_to_scalars(input, min, max)


def clamp_(input, min=None, max=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return input.copy_(_clamp_to_tensors(input, min, max))
    return _clamp_to_scalars_(input, min, max)


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


def exp2(input):
    return (_floating(input) * _LN2).exp()


def log2(input):
    return _floating(input).log() / _LN2


def log10(input):
    return _floating(input).log() / _LN10


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (even for other 0), NaN where
    other is NaN."""
    x = input if isinstance(input, Tensor) else _C.where(other == other, float(input), float(input))
    y = other if isinstance(other, Tensor) else _C.where(x == x, float(other), float(other))
    x, y = _floating(x), _floating(y)
    safe = _C.where(x == 0, 1.0, y)
    return _C.where(y != y, y, _C.where(x == 0, 0.0, x * safe.log()))


def logit(input, eps=None):
    x = _floating(input)
    if eps is not None:
        x = x.clamp(eps, 1 - eps)
    return (x / (1 - x)).log()


def hypot(input, other):
    # Scaled by the larger magnitude, so that squares neither overflow nor
    # underflow.
    a, b = _floating(input).abs(), _floating(other).abs()
    big, small = _C.maximum(a, b), _C.minimum(a, b)
    ratio = _C.where(big == 0, 0.0, small / _C.where(big == 0, 1.0, big))
    # An infinite side wins over a NaN one, as in C's hypot.
    return _C.where((a == math.inf) | (b == math.inf), math.inf, big * (ratio * ratio + 1).sqrt())


def logaddexp(input, other):
    a, b = _floating(input), _floating(other)
    big, small = _C.maximum(a, b), _C.minimum(a, b)
    # max + log1p(exp(min - max)), exact for far-apart arguments; equal ones
    # (infinities among them) are the argument plus log 2.
    return _C.where(a == b, a + _LN2, big + (small - big).exp().log1p())


def logaddexp2(input, other):
    return logaddexp(_floating(input) * _LN2, _floating(other) * _LN2) / _LN2


def deg2rad(input):
    return _floating(input) * (math.pi / 180.0)


def rad2deg(input):
    return _floating(input) * (180.0 / math.pi)


def sinh(input):
    x = _floating(input)
    # expm1 keeps the small arguments exact; the large ones come from one
    # exponential, which does not overflow before sinh itself.
    t = x.abs().expm1()
    small = t * (t + 2) / ((t + 1) * 2)
    large = (x.abs() - _LN2).exp()
    magnitude = _C.where(x.abs() < 20, small, large)
    return _C.where(x < 0, -magnitude, magnitude)


def cosh(input):
    x = _floating(input).abs()
    return _C.where(x < 20, (x.exp() + (-x).exp()) * 0.5, (x - _LN2).exp())


def asinh(input):
    x = _floating(input)
    a = x.abs()
    # log1p(a + a^2 / (1 + sqrt(1 + a^2))) for accuracy near 0; for large a,
    # log(a) + log 2 avoids a^2 overflowing.
    near = (a + a * a / ((a * a + 1).sqrt() + 1)).log1p()
    far = _C.where(a > 1e8, a, 1.0).log() + _LN2
    magnitude = _C.where(a > 1e8, far, near)
    return _C.where(x < 0, -magnitude, magnitude)


def acosh(input):
    x = _floating(input)
    t = x - 1
    near = (t + (t * (t + 2)).clamp(min=0).sqrt()).log1p()
    far = _C.where(x > 1e8, x, 2.0).log() + _LN2
    return _C.where(x < 1, math.nan, _C.where(x > 1e8, far, near))


def atanh(input):
    x = _floating(input)
    return ((x * 2) / (1 - x)).log1p() * 0.5


_round_to_integers = _C.round
_round_in_place = Tensor.round_


def _rounded(input, decimals, rounding):
    if decimals == 0:
        return rounding(input)
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"round(): decimals is only supported for floating tensors, not "
                           f"{str(input.dtype).removeprefix('ember.')}")
    scale = 10.0 ** abs(decimals)
    if decimals > 0:
        return rounding(input * scale) / scale
    return rounding(input / scale) * scale


def round(input, *, decimals=0):  # noqa: A001  (PyTorch's name)
    """Rounds half to even, at `decimals` places after the point (before it
    when negative), scaling by 10 ** decimals in the tensor's dtype as PyTorch does."""
    return _rounded(input, decimals, _round_to_integers)


def round_(input, *, decimals=0):
    if decimals == 0:
        return _round_in_place(input)
    return input.copy_(round(input, decimals=decimals))


def sinc(input):
    x = _floating(input) * math.pi
    safe = _C.where(x == 0, x + 1, x)
    return _C.where(x == 0, 1.0, safe.sin() / safe)


def frac(input):
    return input - input.trunc()


def fix(input):
    return input.trunc()


def float_power(input, exponent):
    base = input.to(_C.float64) if isinstance(input, Tensor) else input
    power = exponent.to(_C.float64) if isinstance(exponent, Tensor) else exponent
    if not isinstance(base, Tensor):
        return power.new_full(list(power.shape), float(base)).pow(power)
    return base.pow(power)


def copysign(input, other):
    magnitude = _floating(input).abs()
    negative = signbit(other) if isinstance(other, Tensor) else math.copysign(1.0, other) < 0
    if isinstance(negative, bool):
        return -magnitude if negative else magnitude
    return _C.where(negative, -magnitude, magnitude)


def signbit(input):
    if not input.dtype.is_floating_point:
        return input < 0
    # -0.0 has its sign bit set: 1 / -0.0 is -inf.
    return (input < 0) | ((input == 0) & (input.reciprocal() < 0))


def sgn(input):
    # PyTorch's sign of NaN is 0.
    signs = input.sign()
    return _C.where(signs != signs, 0.0, signs) if input.dtype.is_floating_point else signs


def positive(input):
    if input.dtype == _C.bool:
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return input


def heaviside(input, values):
    if isinstance(values, numbers.Number):
        raise TypeError("heaviside(): argument 'values' must be Tensor, not " + type(values).__name__)
    if input.dtype != values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes ({input.dtype} and "
                           f"{values.dtype})")
    return _C.where(input == 0, values, _C.where(input > 0, 1.0, 0.0)).to(input.dtype)


def fmax(input, other):
    """maximum, except that a NaN loses to a number."""
    larger = _C.maximum(input, other)
    return _C.where(input != input, other, _C.where(other != other, input, larger))


def fmin(input, other):
    smaller = _C.minimum(input, other)
    return _C.where(input != input, other, _C.where(other != other, input, smaller))


def isposinf(input):
    return input == math.inf


def isneginf(input):
    return input == -math.inf


def isreal(input):
    # Every element of a real dtype is real, NaN included.
    return input == input if not input.dtype.is_floating_point else (input == input) | (input != input)


def _integer_pair(name, a, b):
    for t in (a, b):
        if isinstance(t, Tensor) and t.dtype.is_floating_point:
            raise RuntimeError(f"{name}: expected integer tensors, got {t.dtype}")


def gcd(input, other):
    """Euclid's algorithm, elementwise, until every pair is done."""
    _integer_pair("gcd", input, other)
    from ._shape_ops import broadcast_tensors
    a, b = broadcast_tensors(input.abs(), other.abs())
    while bool((b != 0).any()):
        a, b = _C.where(b != 0, b, a), _C.where(b != 0, a.remainder(_C.where(b != 0, b, b + 1)), b)
    return a


def lcm(input, other):
    _integer_pair("lcm", input, other)
    divisor = gcd(input, other)
    return _C.where(divisor == 0, divisor, (input // _C.where(divisor == 0, divisor + 1, divisor) * other).abs())


def addcmul(input, tensor1, tensor2, *, value=1):
    return input + tensor1 * tensor2 * value if value != 1 else input + tensor1 * tensor2


def addcdiv(input, tensor1, tensor2, *, value=1):
    if not (tensor1.dtype.is_floating_point or tensor2.dtype.is_floating_point):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2.")
    return input + tensor1 / tensor2 * value if value != 1 else input + tensor1 / tensor2


def ldexp(input, other):
    """input * 2 ** other, in the floating dtype the two promote to."""
    return input * (2.0 ** other)


frexp_result = namedtuple("frexp", "mantissa exponent")


def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent, |mantissa| in
    [0.5, 1) and an int32 exponent; zeros, infinities and NaN keep their value
    with exponent 0, as C's frexp gives them."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes, got {_dtype_name(input.dtype)}")
    wide = input.to(_C.float64)
    regular = (wide != 0) & wide.isfinite()
    magnitude = _C.where(regular, wide.abs(), 1.0)
    exponent = magnitude.log2().floor() + 1
    # log2 rounds near powers of two; one step either way puts the mantissa in [0.5, 1).
    mantissa = _scaled_by_power_of_two(magnitude, -exponent)
    exponent = exponent + (mantissa >= 1).to(_C.float64) - (mantissa < 0.5).to(_C.float64)
    mantissa = _C.where(regular, _scaled_by_power_of_two(magnitude, -exponent) * wide.sign(), wide)
    return frexp_result(mantissa.to(input.dtype), _C.where(regular, exponent, 0.0).to(_C.int32))


def _scaled_by_power_of_two(values, powers):
    """values * 2 ** powers in two halves, so that a subnormal's 2 ** 1074 does not overflow."""
    half = (powers * 0.5).floor()
    return values * (2.0 ** half) * (2.0 ** (powers - half))


def _shift(name, input, other, left):
    """input shifted by other bits (two's complement, wrapping to the dtype as
    PyTorch's << and >> do): a count past the dtype's width, or negative,
    shifts every bit out: 0 to the left, the sign's fill to the right."""
    dtype = _C.result_type(input, other) if isinstance(input, Tensor) else _C.result_type(other, input)
    if dtype.is_floating_point or dtype == _C.bool:
        raise NotImplementedError(f"{name}: not implemented for {str(dtype).removeprefix('ember.')}")
    from ._type_info import iinfo
    from ._shape_ops import broadcast_tensors
    a, count = (t if isinstance(t, Tensor) else _C.scalar_tensor(t, dtype=_C.int64) for t in (input, other))
    a, count = broadcast_tensors(a.to(_C.int64), count.to(_C.int64))
    width = iinfo(dtype).bits
    inside = (count >= 0) & (count < width)
    count = _C.where(inside, count, 0)
    if left:
        # Two factors of at most 2 ** 32 each: 2 ** 63 itself is past int64.
        half = count // 2
        shifted = a * (2 ** half) * (2 ** (count - half))
        return _C.where(inside, shifted, 0).to(dtype)
    # Floor division by 2 ** count is the arithmetic shift; a count of 63
    # (the sign's own place) leaves only the sign's fill, as past the width.
    top = count >= 63
    shifted = a // (2 ** _C.where(top, 0, count))
    fill = _C.where(a < 0, -1, 0)
    return _C.where(inside & ~top, shifted, fill).to(dtype)


def bitwise_left_shift(input, other):
    return _shift("bitwise_left_shift", input, other, left=True)


def bitwise_right_shift(input, other):
    return _shift("bitwise_right_shift", input, other, left=False)


def is_floating_point(input):
    return input.dtype.is_floating_point


def is_complex(input):
    return False  # Ember has no complex dtypes


ALIASES = {
    "absolute": "abs", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "greater": "gt",
    "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne", "multiply": "mul",
    "subtract": "sub", "true_divide": "div", "clip": "clamp", "concatenate": "cat", "concat": "cat",
    "row_stack": "vstack",
}
