"""Adaptive max pooling over the last one, two or three dims, with PyTorch's
windows and indices, composed of a gather of every window's cells and a max
over them (Note [Adaptive max pooling by gather]); adaptive average pooling
over three dims, from the core's 2-d one."""

import math

from .. import _C, _factories
from .._C import _nn

__all__ = ["adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
           "adaptive_avg_pool3d"]

# Note [Adaptive max pooling by gather]
# Output cell i of a dim of size n pooled to m covers the input cells
# floor(i*n/m) .. ceil((i+1)*n/m) - 1, PyTorch's windows, which overlap or
# differ in length when m does not divide n. Each window's cells are listed
# to the longest window's width, a shorter one repeating its last cell (a
# repeat changes neither the max nor which cell is first to hold it); the
# lists of the pooled dims combine into flat positions in the input's plane,
# one index_select reads every window and a max over the last dim pools it.
# max takes the first of equal values, so the index is the first maximum in
# row-major order, PyTorch's; gradients flow back through index_select to
# that cell only.


def _window_cells(size, pooled, device):
    """(pooled, width) positions along one dim, a row per output cell."""
    starts = [i * size // pooled for i in range(pooled)]
    ends = [-(-(i + 1) * size // pooled) for i in range(pooled)]
    width = max(end - start for start, end in zip(starts, ends))
    rows = [[min(start + k, end - 1) for k in range(width)] for start, end in zip(starts, ends)]
    return _factories.tensor(rows, dtype=_C.int64, device=device)


def _window_positions(sizes, pooled, device):
    """pooled + [cells per window]: every window's flat positions in the plane."""
    spatial = len(sizes)
    positions = None
    for dim, (size, out) in enumerate(zip(sizes, pooled)):
        cells = _window_cells(size, out, device)
        shape = [1] * (2 * spatial)
        shape[dim], shape[spatial + dim] = cells.shape
        cells = cells.reshape(shape)
        positions = cells if positions is None else positions * size + cells
    return positions.reshape(list(pooled) + [-1])


def _check_input(name, input):
    if not input.is_floating_point():
        raise NotImplementedError(f"\"{name}\" not implemented for '{str(input.dtype).removeprefix('ember.')}'")
    shape = list(input.shape)
    for dim in range(1, len(shape)):
        if shape[dim] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {shape} with dimension {dim} being empty")


def _adaptive_max_pool(input, pooled):
    spatial = len(pooled)
    lead = list(input.shape[:-spatial])
    if any(out < 0 for out in pooled):
        negative = next(out for out in pooled if out < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {lead + pooled}")
    flat = input.reshape(lead + [-1])
    if 0 in pooled:
        empty = flat.narrow(-1, 0, 0).reshape(lead + pooled)
        return empty, _C._zeros(lead + pooled, _C.int64, input.device)
    positions = _window_positions(list(input.shape[-spatial:]), pooled, input.device)
    windows = flat.index_select(-1, positions.reshape(-1)).reshape(lead + list(positions.shape))
    values, first = windows.max(-1)
    indices = positions.expand(list(windows.shape)).gather(-1, first.unsqueeze(-1)).squeeze(-1)
    return values, indices


def _pooled_sizes(input, output_size, spatial, wrong_length):
    """output_size as one size per pooled dim; None keeps that dim's input size, as in PyTorch."""
    pooled = [output_size] * spatial if isinstance(output_size, int) else list(output_size)
    if len(pooled) != spatial:
        raise RuntimeError(wrong_length)
    return [size if out is None else int(out) for out, size in zip(pooled, input.shape[-spatial:])]


def _adaptive_max_pool_nd(input, output_size, spatial):
    name = f"adaptive_max_pool{spatial}d"
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but got: {list(input.shape)}")
    _check_input(name, input)
    pooled = _pooled_sizes(input, output_size, spatial,
                           f"{name}(): internal error: output_size.size() must be {spatial}")
    return _adaptive_max_pool(input, pooled)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_pool_nd(input, output_size, 2)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max_pool_nd(input, output_size, 3)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    values, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_avg_pool3d(input, output_size):
    """Separably: an average over a product of windows is the average over
    the depth window of the averages over the (height, width) windows, and
    the core's 2-d pool does each, the second over a width kept as it is."""
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    shape = list(input.shape)
    for dim in range(1, len(shape)):
        if shape[dim] == 0:
            raise RuntimeError("adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {dim} being empty")
    depth, height, width = _pooled_sizes(input, output_size, 3, "adaptive_avg_pool3d: output_size must be 3")
    lead = shape[:-3]
    planes = input.reshape([math.prod(lead)] + shape[-3:])
    pooled = _nn.adaptive_avg_pool2d(planes, [height, width])
    pooled = _nn.adaptive_avg_pool2d(pooled.reshape([planes.shape[0], shape[-3], height * width]),
                                     [depth, height * width])
    return pooled.reshape(lead + [depth, height, width])


def adaptive_max_pool2d(input, output_size, return_indices=False):
    values, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    _check_input("adaptive_max_pool1d", input)
    if output_size is None:
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' must be tuple of ints, not NoneType")
    pooled = [output_size] if isinstance(output_size, int) else list(output_size)
    if len(pooled) != 1:
        raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int (got {len(pooled)})")
    return _adaptive_max_pool(input, [int(pooled[0])])


def adaptive_max_pool1d(input, output_size, return_indices=False):
    values, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (values, indices) if return_indices else values
