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


_MeanPair = collections.namedtuple("return_types", ["spread", "mean"])


def _moments(input, dim, correction, keepdim):
    from ._elementwise_math import _floating
    x = _floating(input)
    dims = tuple(range(x.dim())) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    count = 1
    for d in dims:
        count *= x.shape[d]
    centered = x - x.mean(dims, keepdim=True)
    # count <= correction divides by zero: inf or NaN, as in PyTorch.
    variance = (centered * centered).sum(dims, keepdim=keepdim) / float(count - correction)
    return variance, x.mean(dims, keepdim=keepdim)


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    variance, mean = _moments(input, dim, correction, keepdim)
    return _MeanPair(variance.sqrt(), mean)


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    return _MeanPair(*_moments(input, dim, correction, keepdim))


def _pick(input, dim, k, keepdim):
    values, indices = input.sort(dim)
    chosen = _ValuesIndices(values.narrow(dim, k, 1), indices.narrow(dim, k, 1))
    return chosen if keepdim else _ValuesIndices(chosen.values.squeeze(dim), chosen.indices.squeeze(dim))


def median(input, dim=None, keepdim=False):
    """The lower median, as PyTorch's: element (n - 1) // 2 of the sorted
    values; along a dim, with its index."""
    if dim is None:
        flat = input.reshape([-1])
        return flat.sort().values[(flat.shape[0] - 1) // 2]
    return _pick(input, dim, (input.shape[dim] - 1) // 2, keepdim)


def nanmedian(input, dim=None, keepdim=False):
    """median() of the values that are not NaN (NaN where a slice has none);
    sort puts NaNs last, so the lower median of a slice's n values is its
    element (n - 1) // 2."""
    if dim is None:
        flat = input.reshape([-1])
        kept = flat[~flat.isnan()]
        return median(kept) if kept.numel() else flat.sum() * float("nan")
    ordered = input.sort(dim)
    counts = (~input.isnan()).sum(dim, keepdim=True)
    middle = ((counts - 1) // 2).clamp(min=0)
    chosen = _ValuesIndices(ordered.values.gather(dim, middle), ordered.indices.gather(dim, middle))
    return chosen if keepdim else _ValuesIndices(chosen.values.squeeze(dim), chosen.indices.squeeze(dim))


def mode(input, dim=-1, keepdim=False):
    """The most frequent value of each slice along dim (the smallest of those
    tied) and the index of its last occurrence, as PyTorch gives."""
    d = dim % max(input.dim(), 1)
    moved = input.reshape([1]) if input.dim() == 0 else input.movedim(d, -1)
    rows = moved.reshape([-1, moved.shape[-1]])
    ordered = rows.sort(1, stable=True)
    values = ordered.values
    differs = values[:, 1:] != values[:, :-1]
    starts = _C.cat([differs.new_ones([differs.shape[0], 1]), differs], 1)
    run = starts.to(_C.int64).cumsum(1) - 1
    counts = run.new_zeros(run.shape).scatter_add(1, run, run.new_ones(run.shape))
    best = counts.gather(1, run).argmax(1, keepdim=True)
    best_run = run.gather(1, best)
    last = run.new_full(run.shape, -1).scatter_reduce(1, run, ordered.indices, "amax")
    result_shape = list(moved.shape[:-1])
    chosen = _ValuesIndices(values.gather(1, best).reshape(result_shape),
                            last.gather(1, best_run).reshape(result_shape))
    if keepdim and input.dim() > 0:
        chosen = _ValuesIndices(chosen.values.unsqueeze(d), chosen.indices.unsqueeze(d))
    return chosen


def kthvalue(input, k, dim=-1, keepdim=False):
    size = input.shape[dim] if input.dim() > 0 else 1
    if not 1 <= k <= size:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _pick(input, dim, k - 1, keepdim)


_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _quantiles(input, q, dim, keepdim, interpolation, ignore_nan, name):
    """quantile and nanquantile: one result per q (a leading dim when q is a
    tensor), between the sorted values at floor and ceil of q (n - 1), n the
    count of the slice's values (its non-NaN ones for nanquantile). A NaN in
    a slice makes quantile's result NaN, and a slice of NaNs only makes
    nanquantile's NaN, as in PyTorch (sort puts NaN last)."""
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                         f"Got {interpolation}")
    values = [float(q)] if not isinstance(q, Tensor) else [float(v) for v in q.reshape([-1]).tolist()]
    if any(not 0 <= v <= 1 for v in values):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    x = input.reshape([-1]) if dim is None else input
    d = 0 if dim is None else dim % input.dim()
    ordered = x.sort(d).values
    missing = x.isnan()
    if ignore_nan:
        count = (~missing).sum(d, keepdim=True).to(x.dtype)
    else:
        count = _C._full([1] * x.dim(), float(x.shape[d]), x.dtype, x.device)
    slice_shape = list(x.shape)
    slice_shape[d] = 1
    last = (count - 1).clamp(min=0).expand(slice_shape)
    empty = count == 0 if ignore_nan else missing.any(d, keepdim=True)
    results = []
    for value in values:
        position = last * value
        low = position.floor()
        high = (low + 1).minimum(last)
        fraction = position - low
        if interpolation == "lower":
            high, fraction = low, fraction * 0
        elif interpolation == "higher":
            low, fraction = _C.where(fraction > 0, high, low), fraction * 0
        elif interpolation == "nearest":
            low = high = position.round()
            fraction = fraction * 0
        elif interpolation == "midpoint":
            fraction = _C.where((high != low) & (fraction > 0), fraction * 0 + 0.5, fraction * 0)
        a = ordered.gather(d, low.to(_C.int64))
        b = ordered.gather(d, high.to(_C.int64))
        result = _C.where(empty, a.detach() * float("nan"), a + (b - a) * fraction)
        if dim is None:
            result = result.reshape([1] * input.dim()) if keepdim else result.reshape([])
        elif not keepdim:
            result = result.squeeze(d)
        results.append(result)
    return results[0] if not isinstance(q, Tensor) or q.dim() == 0 else _C.stack(results, 0)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantiles(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantiles(input, q, dim, keepdim, interpolation, True, "nanquantile")


def cov(input, *, correction=1, fweights=None, aweights=None):
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights and aweights are not supported yet")
    x = input.reshape([1, -1]) if input.dim() < 2 else input
    centered = x - x.mean(1, keepdim=True)
    out = centered.matmul(centered.transpose(0, 1)) / float(x.shape[1] - correction)
    return out.reshape([]) if input.dim() < 2 else out


def corrcoef(input):
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


def _trapezoid_pieces(y, x, dx, dim):
    """The area under each step of y along dim: one fewer than y."""
    length = y.shape[dim]
    left, right = y.narrow(dim, 0, max(length - 1, 0)), y.narrow(dim, min(1, length), max(length - 1, 0))
    pieces = (left + right) * 0.5
    if x is None:
        return pieces * (1.0 if dx is None else dx)
    along = 0 if x.dim() == 1 else dim
    spacing = x.narrow(along, 1, length - 1) - x.narrow(along, 0, length - 1)
    if x.dim() == 1:
        spacing = spacing.reshape([-1] + [1] * (y.dim() - dim - 1))
    return pieces * spacing


def trapezoid(y, x=None, *, dx=None, dim=-1):
    dim = dim % y.dim()
    return _trapezoid_pieces(y, x, dx, dim).sum(dim)


trapz = trapezoid


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running sums of trapezoid()'s pieces along dim."""
    dim = dim % y.dim()
    return _trapezoid_pieces(y, x, dx, dim).cumsum(dim)


def renorm(input, p, dim, maxnorm):
    """input with each slice along dim whose p-norm is past maxnorm scaled
    down to norm maxnorm (divided by its norm + 1e-7, as PyTorch does)."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"renorm: expected a floating point input, got {str(input.dtype).removeprefix('ember.')}")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    dim = dim % max(input.dim(), 1)
    others = [d for d in range(input.dim()) if d != dim]
    norms = input.norm(p, others, keepdim=True) if others else input.abs()
    return input * _C.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def msort(input):
    return input.sort(0).values
