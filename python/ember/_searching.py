"""searchsorted, bucketize and unique, over sort, gather and cumsum."""

import math

from . import _C
from ._C import Tensor
from ._shape_ops import movedim


def binary_search(boundaries, values, right):
    """For each value along the last dim, the first position in its row of
    boundaries whose element is greater (right) or not less (left) than it:
    one gather and compare per halving of the rows' length."""
    length = boundaries.shape[-1]
    low = _C._zeros(list(values.shape), _C.int64, values.device)
    high = _C._full(list(values.shape), length, _C.int64, values.device)
    if length == 0:
        return low
    for _ in range(length.bit_length()):
        middle = (low + high).floor_divide(2)
        probe = boundaries.gather(-1, middle.clamp(max=length - 1))
        go_right = (probe <= values) if right else (probe < values)
        go_right = go_right & (low < high)
        low = _C.where(go_right, middle + 1, low)
        high = _C.where(go_right | (low >= high), high, middle)
    return low


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Where each of input's values would go in sorted_sequence (1-d, or with
    input's leading dims) to keep it sorted: before equal elements, or after
    them with right=True (side="right")."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    values = _C.scalar_tensor(input, device=sorted_sequence.device) if scalar else input
    if sorter is not None:
        if sorter.shape != sorted_sequence.shape:
            raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(sorted_sequence.shape)} and sorter tensor {list(sorter.shape)}")
        sorted_sequence = sorted_sequence.gather(-1, sorter.to(_C.int64))
    if sorted_sequence.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    if sorted_sequence.dim() > 1 and (values.dim() != sorted_sequence.dim()
                                      or list(values.shape[:-1]) != list(sorted_sequence.shape[:-1])):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(sorted_sequence.shape)} and input value tensor "
                           f"{list(values.shape)}")
    common = _C.promote_types(sorted_sequence.dtype, values.dtype)
    boundaries, values = sorted_sequence.detach().to(common), values.detach().to(common)
    if boundaries.dim() == 1:
        rows = values.reshape([1, -1])
        positions = binary_search(boundaries.reshape([1, -1]), rows, right).reshape(list(values.shape))
    else:
        positions = binary_search(boundaries, values, right)
    return positions.to(_C.int32) if out_int32 else positions


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of 1-d ``boundaries`` each element falls in:
    boundaries[i-1] < x <= boundaries[i] (with right=True, boundaries[i-1] <= x < boundaries[i])."""
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def _lexicographic_order(rows):
    """The permutation that sorts the rows of a 2-d tensor lexicographically:
    stable sorts by each column, the last first."""
    order = _C._arange(0, rows.shape[0], 1, _C.int64, rows.device)
    for column in reversed(range(rows.shape[1])):
        keys = rows[:, column].index_select(0, order)
        order = order.index_select(0, _C.sort(keys, stable=True).indices)
    return order


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements (or slices along ``dim``) in ascending order;
    with return_inverse, where each element of input went; with
    return_counts, how often each occurs. NaNs are each distinct, as in
    PyTorch. The result is sorted whether or not ``sorted`` asks for it."""
    del sorted  # the result is always sorted, which sorted=False allows
    if dim is None:
        flat = input.detach().reshape(-1)
        values, order = _C.sort(flat, stable=True)
        keys = values.reshape([-1, 1])
        inverse_shape = list(input.shape)
    else:
        dim %= max(input.dim(), 1)
        moved = movedim(input.detach(), dim, 0)
        keys_unsorted = moved.reshape([moved.shape[0], -1]) if moved.shape[0] else moved.reshape([0, 1])
        order = _lexicographic_order(keys_unsorted)
        keys = keys_unsorted.index_select(0, order)
        values = moved.index_select(0, order)
        inverse_shape = [input.shape[dim]]
    count = keys.shape[0]
    first = _C._ones([count], _C.bool, input.device)
    if count > 1:
        if dim is None:
            differs = values[1:] != values[:-1]
        elif keys.shape[1]:
            differs = (keys[1:] != keys[:-1]).any(1)
        else:
            differs = _C._zeros([count - 1], _C.bool, input.device)
        first = _C.cat([first[:1], differs])
    distinct = values[first] if dim is None else values.index_select(0, first.nonzero().reshape(-1))
    if dim is not None:
        distinct = movedim(distinct, 0, dim)
    results = [distinct]
    if return_inverse or return_counts:
        group = first.to(_C.int64).cumsum(0) - 1
    if return_inverse:
        inverse = _C.index_put(_C._zeros([count], _C.int64, input.device), [order], group)
        results.append(inverse.reshape(inverse_shape))
    if return_counts:
        groups = distinct.shape[0] if dim is None else distinct.shape[dim]
        ones = _C._ones([count], _C.int64, input.device)
        results.append(_C.index_put(_C._zeros([groups], _C.int64, input.device), [group], ones, True))
    return results[0] if len(results) == 1 else tuple(results)


Tensor.unique = unique


def unravel_index(indices, shape):
    """The coordinates in `shape` of flat row-major indices, one tensor per
    dim; an index outside the shape wraps around, as in PyTorch."""
    if not isinstance(indices, _C.Tensor):
        indices = _C.scalar_tensor(indices, dtype=_C.int64) if isinstance(indices, int) else indices
    if not isinstance(indices, _C.Tensor) or indices.dtype.is_floating_point or indices.dtype == _C.bool:
        kind = indices.dtype if isinstance(indices, _C.Tensor) else type(indices).__name__
        raise TypeError(f"expected 'indices' to be integer dtype, but got {kind}")
    shape = [shape] if isinstance(shape, int) else list(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coordinates, step = [], 1
    for size in reversed(shape):
        coordinates.append(_C.remainder(_C.floor_divide(indices, step), size) if size else indices * 0)
        step *= max(size, 1)
    return tuple(reversed(coordinates))


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive elements (or slices along dim) kept once;
    with the run each element belongs to and each run's length if asked."""
    flat = input.reshape([-1]) if dim is None else input.movedim(dim, 0)
    if flat.dim() == 0:
        flat = flat.reshape([1])
    rows = flat.reshape([flat.shape[0], math.prod(flat.shape[1:])])
    differs = (rows[1:] != rows[:-1]).any(1)
    starts = _C.cat([differs.new_ones([min(rows.shape[0], 1)]), differs])
    run = starts.to(_C.int64).cumsum(0) - 1
    output = flat[starts] if dim is None else flat[starts].movedim(0, dim)
    results = [output]
    if return_inverse:
        results.append(run.reshape(list(input.shape)) if dim is None else run)
    if return_counts:
        results.append(run.new_zeros([int(starts.sum().item())]).scatter_add(0, run, run.new_ones(run.shape)))
    return results[0] if len(results) == 1 else tuple(results)
