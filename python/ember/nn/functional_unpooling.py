"""max_unpool1d/2d/3d: the partial inverse of a max pool, each value written
into a plane of zeros at the flat index the pool gave it."""

import math

from .. import _C
from ..autograd.function import Function
from .._dtype_names import dtype_name as _dtype_name

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _per_dim(value, spatial):
    return [value] * spatial if isinstance(value, int) else list(value)


def _unpooled_size(input, kernel, stride, padding, output_size):
    """The output's spatial sizes: the pool's input size when output_size is
    None, else output_size (its last dims), which must lie within a stride of it."""
    spatial = len(kernel)
    default = [(input.shape[d - spatial] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(spatial)]
    if output_size is None:
        sizes = default
    else:
        if len(output_size) == spatial + 2:
            output_size = output_size[2:]
        if len(output_size) != spatial:
            raise ValueError(f"output_size should be a sequence containing {spatial} or {spatial + 2} elements, but "
                             f"it has a length of '{len(output_size)}'")
        for d in range(spatial):
            least, most = default[d] - stride[d], default[d] + stride[d]
            if not least < output_size[d] < most:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {least} and {most})')
        sizes = [int(size) for size in output_size]
    for d, size in enumerate(sizes):
        if size < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={size}")
    return sizes


class _ScatterIntoZeros(Function):
    """values at their flat indices in a plane of zeros. The gradient reads
    the output's gradient back at every index, so that each of the values a
    pool took from one cell (overlapping windows) gets it, as PyTorch's
    max_unpool gradient does; a plain scatter's would go to one of them."""

    @staticmethod
    def forward(ctx, values, indices, plane):
        ctx.save_for_backward(indices)
        return values.new_zeros(list(values.shape[:-1]) + [plane]).scatter(-1, indices, values)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return grad.gather(-1, indices), None, None


def _unpool_into(name, input, indices, sizes):
    spatial = len(sizes)
    if indices.dtype != _C.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_dtype_name(indices.dtype)}")
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Input to {name} should be a {spatial + 1}d or {spatial + 2}d Tensor, but got a tensor "
                           f"with {input.dim()} dimensions.")
    if list(indices.shape) != list(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    lead = list(input.shape[:-spatial])
    plane = math.prod(sizes)
    flat_indices = indices.reshape(lead + [-1])
    outside = ((flat_indices < 0) | (flat_indices >= plane)).reshape([-1]).nonzero()
    if outside.numel():
        # The last one: PyTorch reports the last its loop over one plane
        # met, of whichever plane's thread reported last.
        bad = int(flat_indices.reshape([-1])[int(outside[-1, 0].item())].item())
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(size) for size in sizes)})")
    return _ScatterIntoZeros.apply(input.reshape(lead + [-1]), flat_indices, plane).reshape(lead + sizes)


def _max_unpool(name, input, indices, kernel_size, stride, padding, output_size, spatial):
    kernel = _per_dim(kernel_size, spatial)
    steps = kernel if stride is None else _per_dim(stride, spatial)
    sizes = _unpooled_size(input, kernel, steps, _per_dim(padding, spatial), output_size)
    return _unpool_into(name, input, indices, sizes)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool("max_unpooling2d", input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool("max_unpooling3d", input, indices, kernel_size, stride, padding, output_size, 3)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    # As in PyTorch, a 2-d unpool over a trailing width of 1, which its errors show.
    kernel = _per_dim(kernel_size, 1)
    steps = kernel if stride is None else _per_dim(stride, 1)
    sizes = _unpooled_size(input, kernel, steps, _per_dim(padding, 1), output_size)
    return _unpool_into("max_unpooling2d", input.unsqueeze(-1), indices.unsqueeze(-1), sizes + [1]).squeeze(-1)
