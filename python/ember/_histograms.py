"""Counting into bins: bincount, histc and histogram, over scatter_add."""

from collections import namedtuple

from . import _C
from ._dtype_names import dtype_name as _dtype_name
from ._factories import linspace, ones, zeros
from ._searching import searchsorted

histogram_result = namedtuple("histogram", "hist bin_edges")


def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ..., max(input) occurs in a 1-d tensor of
    non-negative integers (summing `weights` instead of ones where given),
    at least `minlength` bins."""
    if input.dim() != 1 or input.dtype.is_floating_point or input.dtype == _C.bool:
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs, but got a "
                           f"{input.dim()}-d {_dtype_name(input.dtype)} tensor")
    if minlength < 0:
        raise RuntimeError(f"bincount: minlength should be >= 0, but got {minlength}")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError(f"bincount: weights should be 1-d and have the same length as input, but got "
                           f"{list(weights.shape)} for an input of {list(input.shape)}")
    if input.numel() and input.min().item() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs, but got a negative value")
    bins = max(minlength, input.max().item() + 1 if input.numel() else 0)
    if weights is None:
        counts = zeros(bins, dtype=_C.int64, device=input.device)
        return counts.scatter_add(0, input.to(_C.int64), ones(input.numel(), dtype=_C.int64, device=input.device))
    # PyTorch sums float32 weights in float32 and every other dtype's in float64.
    total_dtype = _C.float32 if weights.dtype == _C.float32 else _C.float64
    totals = zeros(bins, dtype=total_dtype, device=input.device)
    return totals.scatter_add(0, input.to(_C.int64), weights.to(total_dtype))


def histc(input, bins=100, min=0, max=0):  # noqa: A002  (PyTorch's names)
    """A histogram of `bins` equal bins between min and max (the input's own
    minimum and maximum when both are 0); values outside are left out, the
    top edge belongs to the last bin."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"histc: not implemented for {_dtype_name(input.dtype)} (floating inputs only)")
    if bins <= 0:
        raise RuntimeError(f"histc: bins must be > 0, but got {bins}")
    low, high = float(min), float(max)
    if low == 0 and high == 0 and input.numel():
        low, high = input.min().item(), input.max().item()
    if low > high:
        raise RuntimeError(f"histc: max must be larger than min, but got min {low} and max {high}")
    if low == high:
        low, high = low - 1, high + 1
    values = input.reshape(-1)
    inside = (values >= low) & (values <= high)
    scaled = ((values - low) * (bins / (high - low))).floor().clamp(0, bins - 1)
    position = _C.where(inside, scaled, 0.0).to(_C.int64)
    counts = zeros(bins, dtype=input.dtype, device=input.device)
    return counts.scatter_add(0, position, inside.to(input.dtype))


def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A002  (PyTorch's names)
    """(counts, edges): `bins` equal bins over `range` (the input's own extent
    by default) or the given increasing edges; each bin holds its left edge,
    the last also its right one; values outside count nowhere. `weight` sums
    weights instead of ones; `density` scales the counts to integrate to 1."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"histogram: input tensor and bins tensors should have the same dtype, got a "
                           f"{_dtype_name(input.dtype)} input (floating inputs only)")
    if weight is not None and list(weight.shape) != list(input.shape):
        raise RuntimeError(f"histogram: if weight tensor is provided, it should have the same shape as the input "
                           f"tensor, got {list(weight.shape)} for {list(input.shape)}")
    if isinstance(bins, _C.Tensor):
        if range is not None:
            raise TypeError("histogram: range cannot be given together with a tensor of bin edges")
        if bins.dim() != 1 or bins.numel() < 2:
            raise RuntimeError(f"histogram: bins tensor should have one dimension and at least 2 elements, got "
                               f"shape {list(bins.shape)}")
        edges = bins.to(input.dtype)
    else:
        if bins <= 0:
            raise RuntimeError(f"histogram(): bins must be > 0, but got {bins}")
        low, high = range if range is not None else ((input.min().item(), input.max().item()) if input.numel()
                                                     else (0.0, 0.0))
        if low > high:
            raise ValueError(f"histogram: min should not exceed max, got min {low} max {high}")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges = linspace(low, high, bins + 1, dtype=input.dtype, device=input.device)
    values = input.reshape(-1)
    count = edges.shape[0] - 1
    inside = (values >= edges[0]) & (values <= edges[-1])
    position = (searchsorted(edges, values, right=True) - 1).clamp(0, count - 1)
    amounts = inside.to(input.dtype) if weight is None else _C.where(inside, weight.reshape(-1).to(input.dtype), 0.0)
    hist = zeros(count, dtype=input.dtype, device=input.device).scatter_add(0, position, amounts)
    if density:
        hist = hist / (hist.sum() * (edges[1:] - edges[:-1]))
    return histogram_result(hist, edges)
