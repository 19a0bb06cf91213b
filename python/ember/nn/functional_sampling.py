"""F.affine_grid and F.grid_sample: sampling an input at the points of a grid
of normalized coordinates, as PyTorch computes it (Note [Sampling at grid
points]), differentiable in the input and in the grid."""

import itertools
import math
import warnings

from .. import _C, _factories

__all__ = ["affine_grid", "grid_sample"]

# Note [Sampling at grid points]
# A grid coordinate in [-1, 1] becomes a position along its input dim: -1
# and 1 are the centres of the first and last cells with align_corners, and
# their outer edges without. The padding mode then moves positions outside
# the input: 'border' clips them to the first or last cell, 'reflection'
# mirrors them at the edges (the centres or the outer edges, as above), and
# 'zeros' leaves them, so that the cells they reach read as 0. Each mode
# reads a few cells ("taps") per dim with a weight each: bilinear the two
# around the position, with weights 1 - t and t for its fraction t; nearest
# the closest one (halves round to even), with weight 1; bicubic the four
# around it, with the cubic convolution weights of A = -0.75, where the
# padding mode moves each tap rather than the position. A sample is the sum,
# over every combination of one tap per dim, of the product of their weights
# and the cell they pick, which one gather reads for all channels and points;
# taps outside the input add nothing. The input's gradient comes out of the
# gather, the grid's out of the weights (the taps' indices pass none back, so
# nearest gives the grid no gradient), and a clipped position passes none
# back either, as in PyTorch, even when it lies exactly on the edge.

_MODES = ("bilinear", "nearest", "bicubic")
_PADDING_MODES = ("zeros", "border", "reflection")
_CUBIC_A = -0.75


def _resolve_align_corners(align_corners):
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.")
        return False
    return bool(align_corners)


def _base_coordinates(steps, align_corners, like):
    """The normalized coordinates of `steps` output cells along one dim."""
    if steps <= 1:
        return like.new_zeros((steps,))
    coordinates = _factories.linspace(-1, 1, steps, dtype=like.dtype, device=like.device)
    return coordinates if align_corners else coordinates * ((steps - 1) / steps)


def affine_grid(theta, size, align_corners=None):
    align_corners = _resolve_align_corners(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    spatial = len(size) - 2
    if spatial not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if theta.dim() != 3 or list(theta.shape[1:]) != [spatial, spatial + 1]:
        raise ValueError(f"Expected a batch of {spatial}D affine matrices of shape Nx{spatial}x{spatial + 1} for size "
                         f"{size}. Got {theta.shape}.")
    sizes = [int(s) for s in size]
    if align_corners and min(sizes[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.")
    elif min(sizes) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != sizes[0]:
        raise RuntimeError(f"affine_grid: theta holds {theta.shape[0]} matrices for a batch of {sizes[0]}")
    # The base grid is (x, y[, z], 1) at every output cell, x along the last
    # dim; the grid is each matrix applied to it.
    out_sizes = sizes[2:]
    axes = []
    for dim, steps in enumerate(reversed(out_sizes)):
        shape = [1] * spatial
        shape[spatial - 1 - dim] = steps
        axes.append(_base_coordinates(steps, align_corners, theta).reshape(shape).expand(*out_sizes))
    axes.append(theta.new_ones(tuple(out_sizes)))
    base = _C.stack(axes, -1).reshape([-1, spatial + 1])
    return base.matmul(theta.transpose(1, 2)).reshape([sizes[0]] + out_sizes + [spatial])


def _position(coordinate, size, align_corners):
    if align_corners:
        return ((coordinate + 1) / 2) * (size - 1)
    return ((coordinate + 1) * size - 1) / 2


def _clip(position, size):
    """Position clipped to [0, size - 1], passing no gradient back where clipped, edges included; NaN goes to 0,
    as in PyTorch."""
    return _C.where(position > 0, _C.where(position < size - 1, position, float(size - 1)), 0.0)


def _reflect(position, twice_low, twice_high):
    """Position mirrored into [twice_low / 2, twice_high / 2] at its ends."""
    if twice_low == twice_high:
        return position.new_zeros(tuple(position.shape))
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = position - low
    distance = _C.where(distance < 0, -distance, distance)
    flips = (distance / span).floor().detach()
    extra = distance - flips * span
    return _C.where(_C.remainder(flips, 2) == 0, extra + low, span - extra + low)


def _padded(position, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(position, size)
    if padding_mode == "reflection":
        if align_corners:
            return _clip(_reflect(position, 0, 2 * (size - 1)), size)
        return _clip(_reflect(position, -1, 2 * size - 1), size)
    return position


def _cubic_near(x):
    return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1


def _cubic_far(x):
    return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A


def _taps(coordinate, size, mode, padding_mode, align_corners):
    """(cell index, weight or None for 1) of each tap along one dim (Note [Sampling at grid points])."""
    if mode == "bicubic":
        position = _position(coordinate, size, align_corners)
        before = position.floor().detach()
        t = position - before
        weights = [_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t)]
        return [(_padded(before + (offset - 1), size, padding_mode, align_corners).long(), weight)
                for offset, weight in enumerate(weights)]
    position = _padded(_position(coordinate, size, align_corners), size, padding_mode, align_corners)
    if mode == "nearest":
        return [(position.detach().round().long(), None)]
    before = position.floor().detach()
    t = position - before
    return [(before.long(), 1 - t), (before.long() + 1, t)]


def _check_grid_sample(input, grid, mode):  # noqa: A002  (PyTorch's names)
    spatial = input.dim() - 2
    if grid.shape[-1] != spatial:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {spatial} in last dimension, but got grid "
                           f"with sizes {list(grid.shape)}")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        expected = f"{input.dim()}D" if input.dim() in (4, 5) else "4D or 5D"
        raise RuntimeError(f"grid_sampler(): expected {expected} input and grid with same number of dimensions, but "
                           f"got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"grid_sample: input must be floating point, got "
                                  f"{str(input.dtype).removeprefix('ember.')}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sample: input and grid must have the same dtype, got "
                           f"{str(input.dtype).removeprefix('ember.')} and {str(grid.dtype).removeprefix('ember.')}")
    if mode == "bicubic" and spatial != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    for dim in range(2, input.dim()):
        if input.shape[dim] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {dim} being empty")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _resolve_align_corners(align_corners)
    _check_grid_sample(input, grid, mode)
    batch, channels = input.shape[:2]
    sizes, out_sizes = list(input.shape[2:]), list(grid.shape[1:-1])
    spatial, points = len(sizes), math.prod(out_sizes)
    # The grid's last dim lists x (the input's last dim) first.
    flat_grid = grid.reshape([batch, points, spatial])
    taps = [_taps(flat_grid.select(2, spatial - 1 - dim), size, mode, padding_mode, align_corners)
            for dim, size in enumerate(sizes)]
    cell_strides = [math.prod(sizes[dim + 1:]) for dim in range(spatial)]
    cells = input.reshape([batch, channels, math.prod(sizes)])
    result = None
    for combination in itertools.product(*taps):
        inside, offset, weight = None, None, None
        for (index, tap_weight), size, stride in zip(combination, sizes, cell_strides):
            within = (index >= 0) & (index < size)
            inside = within if inside is None else inside & within
            term = index.clamp(0, size - 1) * stride
            offset = term if offset is None else offset + term
            if tap_weight is not None:
                weight = tap_weight if weight is None else weight * tap_weight
        values = cells.gather(2, offset.unsqueeze(1).expand(batch, channels, points))
        if weight is not None:
            values = values * weight.unsqueeze(1)
        sample = _C.where(inside.unsqueeze(1), values, 0.0)
        result = sample if result is None else result + sample
    return result.reshape([batch, channels] + out_sizes)
