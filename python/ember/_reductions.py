"""Reductions and scans of torch that Ember builds from its primitives:
nansum, nanmean, aminmax, trace, the cumulative product, maximum and
minimum, logcumsumexp and dist."""

import collections

from . import _C
from ._C import Tensor

_MinMax = collections.namedtuple("aminmax", ["min", "max"])
_ValuesIndices = collections.namedtuple("return_types", ["values", "indices"])


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    zeroed = _C.where(input.isnan(), 0.0, input) if input.dtype.is_floating_point else input
    summed = zeroed.sum() if dim is None else zeroed.sum(dim, keepdim=keepdim)
    return summed if dtype is None else summed.to(dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got {input.dtype}")
    present = (~input.isnan()).to(input.dtype)
    count = present.sum() if dim is None else present.sum(dim, keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


def aminmax(input, *, dim=None, keepdim=False):
    if dim is None:
        return _MinMax(input.amin(), input.amax())
    return _MinMax(input.amin(dim, keepdim), input.amax(dim, keepdim))


def trace(input):
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return input.diagonal().sum()


def _scan(name, input, dim, step):
    """out[0] = x[0]; out[i] = step(out[i-1], x[i]) along dim, one slice at a
    time: exact, and differentiable through every step."""
    if input.dim() == 0:
        return input.clone()
    dim = dim + input.dim() if dim < 0 else dim
    if not 0 <= dim < input.dim():
        raise IndexError(f"{name}: dimension {dim} out of range for a tensor of {input.dim()} dimensions")
    slices = input.unbind(dim)
    if not slices:
        return input.clone()
    out = [slices[0]]
    for x in slices[1:]:
        out.append(step(out[-1], x))
    return _C.stack(out, dim)


def cumprod(input, dim, *, dtype=None):
    x = input if dtype is None else input.to(dtype)
    if x.dtype == _C.bool:
        x = x.to(_C.int64)
    return _scan("cumprod", x, dim, lambda previous, current: previous * current)


def logcumsumexp(input, dim):
    from ._elementwise_math import logaddexp
    return _scan("logcumsumexp", input, dim, logaddexp)


def _cumulative_extreme(name, input, dim, better):
    if input.dim() == 0:
        return _ValuesIndices(input.clone(), input.new_zeros([], dtype=_C.int64))
    dim = dim + input.dim() if dim < 0 else dim
    slices = input.unbind(dim)
    values, indices = [slices[0]], [slices[0].new_zeros(list(slices[0].shape), dtype=_C.int64)]
    for i, x in enumerate(slices[1:], 1):
        # Ties take the later index, as PyTorch's do, and a NaN, once
        # there, stays (a later NaN taking its place).
        previous = values[-1]
        take = better(x, previous) | (x == previous)
        if x.dtype.is_floating_point:
            take = (take | x.isnan()) & ~(previous.isnan() & ~x.isnan())
        values.append(_C.where(take, x, values[-1]))
        indices.append(_C.where(take, i, indices[-1]))
    return _ValuesIndices(_C.stack(values, dim), _C.stack(indices, dim))


def cummax(input, dim):
    return _cumulative_extreme("cummax", input, dim, lambda a, b: a > b)


def cummin(input, dim):
    return _cumulative_extreme("cummin", input, dim, lambda a, b: a < b)


def dist(input, other, p=2):
    return (input - other).norm(p)
