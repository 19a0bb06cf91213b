"""torch.gradient: derivatives estimated from samples by central
differences inside and one-sided differences of first or second order at
the edges, on uniform spacings or given coordinates (numpy.gradient's
formulas)."""

import numbers

from . import _C

__all__ = ["gradient"]


def _spacings(spacing, dims, input):
    """One entry per differentiated dim: a step (number) or that dim's coordinates (1-d tensor)."""
    if isinstance(spacing, (numbers.Number, _C.Tensor)) and not (isinstance(spacing, _C.Tensor) and spacing.dim()):
        return [spacing.item() if isinstance(spacing, _C.Tensor) else spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) == 1 and len(dims) > 1 and isinstance(spacing[0], numbers.Number):
        return spacing * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {len(spacing)} "
                           f"and a dim argument of length {len(dims)}.")
    for entry, dim in zip(spacing, dims):
        if isinstance(entry, _C.Tensor) and entry.dim() and (entry.dim() != 1 or entry.shape[0] != input.shape[dim]):
            raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and the coordinates "
                               f"along dim {dim} to have {input.shape[dim]} entries, got shape {list(entry.shape)}")
    return [entry.item() if isinstance(entry, _C.Tensor) and not entry.dim() else entry for entry in spacing]


def _along(tensor, dim, start, end):
    return tensor.narrow(dim, start, end - start)


def _uniform(values, dim, step, edge_order):
    n = values.shape[dim]
    inner = (_along(values, dim, 2, n) - _along(values, dim, 0, n - 2)) / (2 * step)
    if edge_order == 1:
        first = (_along(values, dim, 1, 2) - _along(values, dim, 0, 1)) / step
        last = (_along(values, dim, n - 1, n) - _along(values, dim, n - 2, n - 1)) / step
    else:
        first = (-1.5 * _along(values, dim, 0, 1) + 2 * _along(values, dim, 1, 2)
                 - 0.5 * _along(values, dim, 2, 3)) / step
        last = (0.5 * _along(values, dim, n - 3, n - 2) - 2 * _along(values, dim, n - 2, n - 1)
                + 1.5 * _along(values, dim, n - 1, n)) / step
    return _C.cat([first, inner, last], dim)


def _coordinates(values, dim, coordinates, edge_order):
    n = values.shape[dim]
    shape = [1] * values.dim()
    shape[dim] = -1
    steps = (coordinates[1:] - coordinates[:-1]).to(values.dtype)
    left, right = steps[:-1].reshape(shape), steps[1:].reshape(shape)
    inner = (left * left * _along(values, dim, 2, n) - right * right * _along(values, dim, 0, n - 2)
             + (right * right - left * left) * _along(values, dim, 1, n - 1)) / (left * right * (left + right))
    if edge_order == 1:
        first = (_along(values, dim, 1, 2) - _along(values, dim, 0, 1)) / steps[0]
        last = (_along(values, dim, n - 1, n) - _along(values, dim, n - 2, n - 1)) / steps[-1]
    else:
        h1, h2 = steps[0], steps[1]
        first = (-(2 * h1 + h2) / (h1 * (h1 + h2)) * _along(values, dim, 0, 1)
                 + (h1 + h2) / (h1 * h2) * _along(values, dim, 1, 2)
                 - h1 / (h2 * (h1 + h2)) * _along(values, dim, 2, 3))
        h1, h2 = steps[-2], steps[-1]
        last = (h2 / (h1 * (h1 + h2)) * _along(values, dim, n - 3, n - 2)
                - (h2 + h1) / (h1 * h2) * _along(values, dim, n - 2, n - 1)
                + (2 * h2 + h1) / (h2 * (h1 + h2)) * _along(values, dim, n - 1, n))
    return _C.cat([first, inner, last], dim)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """A tuple with the estimated derivative of input along each of `dim`
    (every dim by default), each the input's shape."""
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2, got {edge_order}")
    dims = list(range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [d % input.dim() if input.dim() else d for d in dims]
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    values = input if input.dtype.is_floating_point else input.to(_C.get_default_dtype())
    results = []
    for d, entry in zip(dims, _spacings(spacing, dims, input)):
        if isinstance(entry, _C.Tensor):
            results.append(_coordinates(values, d, entry, edge_order))
        else:
            results.append(_uniform(values, d, entry, edge_order))
    return tuple(results)
