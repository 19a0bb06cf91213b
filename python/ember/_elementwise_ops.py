"""Elementwise composites over the core's primitives: lerp, fmod,
nan_to_num, div with a rounding mode, and count_nonzero (a count of the
elementwise test x != 0)."""

import numbers

from . import _C
from ._C import Tensor
from ._type_info import finfo
from ._dtype_names import dtype_name as _dtype_name


def lerp(input, end, weight):
    """input + weight * (end - input), from the nearer end as PyTorch computes
    it, so that weight 0 gives input and weight 1 gives end exactly."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"lerp: expected a floating point input, got {_dtype_name(input.dtype)}")
    for name, operand in (("end", end), ("weight", weight)):
        if isinstance(operand, Tensor) and operand.dtype != input.dtype:
            raise RuntimeError(f"lerp: expected dtype {_dtype_name(input.dtype)} for `{name}` but got dtype "
                               f"{_dtype_name(operand.dtype)}")
    difference = end - input
    if isinstance(weight, numbers.Number):
        if weight < 0.5:
            return input + difference * weight
        return end - difference * (1 - weight)
    return _C.where(weight.abs() < 0.5, input + difference * weight, end - difference * (1 - weight))


def fmod(input, other):
    """C's fmod: the remainder of truncated division, with the sign of input.
    It is remainder(|input|, |other|) signed like input, which is exact: both
    operands positive, remainder takes no correcting step."""
    if not input.dtype.is_floating_point and not (isinstance(other, Tensor) and other.dtype.is_floating_point):
        if bool((other == 0).any()) if isinstance(other, Tensor) else other == 0:
            raise RuntimeError(f"fmod: ZeroDivisionError (integer division by zero, {_dtype_name(input.dtype)})")
    magnitude = _C.remainder(input.abs(), abs(other))
    # A zero remainder of -0.0 is -0.0 (input * 0 keeps input's sign).
    return _C.where(input < 0, -magnitude, _C.where(magnitude == 0, input * 0, magnitude))


_true_divide = Tensor.div
_true_divide_ = Tensor.div_


def _is_integral(value):
    return (not value.dtype.is_floating_point) if isinstance(value, Tensor) else isinstance(value, numbers.Integral)


def div(input, other, *, rounding_mode=None):
    """input / other; rounding_mode "trunc" rounds the quotient toward zero
    and "floor" down, integers staying integers, as PyTorch's div."""
    if rounding_mode is None:
        return _true_divide(input, other)
    if rounding_mode == "floor":
        return input.floor_divide(other)
    if rounding_mode != "trunc":
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{rounding_mode}'")
    if _is_integral(input) and _is_integral(other):
        # Exact: input - fmod(input, other) is a multiple of other.
        return (input - fmod(input, other)).floor_divide(other)
    return _true_divide(input, other).trunc()


def div_(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _true_divide_(input, other)
    return input.copy_(div(input, other, rounding_mode=rounding_mode))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN becomes ``nan``, +inf ``posinf`` and -inf ``neginf`` (by default the
    dtype's largest and lowest values); integer tensors are returned as a copy."""
    if not input.dtype.is_floating_point:
        return input.clone()
    limits = finfo(input.dtype)
    posinf = limits.max if posinf is None else posinf
    neginf = limits.min if neginf is None else neginf
    result = _C.where(input != input, nan, input)
    result = _C.where(result == float("inf"), posinf, result)
    return _C.where(result == float("-inf"), neginf, result)


def count_nonzero(input, dim=None):
    """The number of nonzero elements (over ``dim``, an int or a tuple), as int64."""
    nonzero = input != 0
    if dim is None:
        return nonzero.sum()
    return nonzero.sum(dim)


def _nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    return self.copy_(nan_to_num(self, nan, posinf, neginf))


def _lerp_(self, end, weight):
    # Unrecorded, with a number for weight, the update runs in place in two
    # passes with lerp's bits (an EMA or an optimizer's moving average).
    if (isinstance(weight, numbers.Number) and isinstance(end, Tensor) and end.shape == self.shape
            and end.dtype == self.dtype and self.dtype.is_floating_point
            and not (self.requires_grad and _C.is_grad_enabled())):
        difference = end - self
        if weight < 0.5:
            return self.add_(difference, alpha=weight)
        return self.copy_(end).sub_(difference, alpha=1 - weight)
    return self.copy_(lerp(self.clone(), end, weight))


def _fmod_(self, other):
    return self.copy_(fmod(self.clone(), other))


Tensor.lerp = lerp
Tensor.lerp_ = _lerp_
Tensor.fmod = fmod
Tensor.fmod_ = _fmod_
Tensor.nan_to_num = nan_to_num
Tensor.nan_to_num_ = _nan_to_num_
Tensor.count_nonzero = count_nonzero
