"""Max and average pooling over windows read from the padded input by one
strided view, for any number of spatial dims: the 3-d pools, and the 2-d
average with ceil_mode or divisor_override, which the core's kernel does not
take (Note [Pooling by strided windows])."""

import math

from .. import _C, _factories
from .._C import _nn
from .._type_info import iinfo
from .functional_conv import _patches

__all__ = ["max_pool3d", "max_pool3d_with_indices", "avg_pool3d"]

# Note [Pooling by strided windows]
# The input is padded by `padding` on both sides of each spatial dim, plus
# whatever ceil_mode's last (partial) window reaches beyond, with a value
# that never wins (max: -inf, or the dtype's least integer; average: 0), and
# one as_strided view (functional_conv._patches) lays every window's cells
# out along their own dims. A max or a sum over those dims pools; autograd
# takes gradients back through the view. The average divides by
# divisor_override, or by a count of cells found the same way from a plane
# of ones padded like the input, which counts the `padding` cells when
# count_include_pad and never the cells beyond them that only ceil_mode's
# last window reaches, as PyTorch counts. A max's index is its cell's flat
# position in the unpadded input's plane; max picks the first of equal
# values in the window's row-major order, as PyTorch's CPU kernel does.


def _window_arg(value, spatial, message, allow_empty=False):
    """One int for every dim, or exactly one per spatial dim."""
    if isinstance(value, int):
        return [value] * spatial
    values = list(value)
    if len(values) == 1:
        return values * spatial
    if len(values) != spatial and not (allow_empty and not values):
        raise RuntimeError(message)
    return values


def pooled_length(size, kernel, stride, padding, dilation, ceil_mode):
    """How many windows pool one dim, PyTorch's pooling_output_shape: a
    ceil_mode window must start inside the input or its left padding."""
    reach = size + 2 * padding - dilation * (kernel - 1) - 1
    length = (-(-reach // stride) if ceil_mode else reach // stride) + 1
    if ceil_mode and (length - 1) * stride >= size + padding:
        length -= 1
    return length


def _pad_value(input):
    if input.is_floating_point():
        return -math.inf
    return iinfo(input.dtype).min


def _windows(input, kernel, stride, padding, dilation, lengths, fill):
    """(*lead, prod(kernel), *lengths): every window's cells, padding read as `fill`."""
    sizes = list(input.shape[-len(kernel):])
    edges = []
    for size, k, s, p, d, length in zip(sizes, kernel, stride, padding, dilation, lengths):
        beyond = max(0, (length - 1) * s + d * (k - 1) + 1 - (size + 2 * p))
        edges.append((p, p + beyond))
    flat_edges = [edge for pair in reversed(edges) for edge in pair]  # F.pad's order: last dim first
    padded = _nn.pad(input, flat_edges, fill) if any(flat_edges) else input
    windows = _patches(padded, kernel, dilation, stride)
    lead = input.dim() - len(kernel)
    for axis, length in enumerate(lengths):
        windows = windows.narrow(lead + len(kernel) + axis, 0, length)
    return windows.reshape(list(input.shape[:lead]) + [math.prod(kernel)] + list(lengths))


def _check_windows(name, input, kernel, stride, padding, dilation, ceil_mode, batched_dims, kernel_within_input):
    """PyTorch's checks of a pool's arguments, in its order; the pooled lengths."""
    letters = ["T", "H", "W"][-len(kernel):]
    if any(k <= 0 for k in kernel):
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + " ".join(f"k{letter}: {k}" for letter, k in zip(letters, kernel)))
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"dilation{letter}: {d}" for letter, d in zip(letters, dilation)))
    if input.dim() not in batched_dims:
        raise RuntimeError(f"non-empty {batched_dims[0]}D or {batched_dims[1]}D (batch mode) tensor expected for "
                           "input")
    shape = list(input.shape)
    batch_dims = input.dim() - batched_dims[0]
    for dim in range(batch_dims, input.dim()):
        if shape[dim] == 0:
            raise RuntimeError(f"{name}(): Expected input's non-batch dimensions to have positive length, but input "
                               f"has a shape of {shape} and non-batch dimension {dim - batch_dims} has length zero!")
    sizes = shape[-len(kernel):]
    if kernel_within_input and any(size < k for size, k in zip(sizes, kernel)):
        raise RuntimeError(f"input image ({' '.join(f'{l}: {n}' for l, n in zip(letters, sizes))}) smaller than "
                           f"kernel size ({' '.join(f'k{l}: {k}' for l, k in zip(letters, kernel))})")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    lengths = [pooled_length(*args, ceil_mode) for args in zip(sizes, kernel, stride, padding, dilation)]
    if any(length < 1 for length in lengths):
        channels = shape[batch_dims]
        raise RuntimeError(f"Given input size: ({'x'.join(str(n) for n in [channels] + sizes)}). Calculated output "
                           f"size: ({'x'.join(str(n) for n in [channels] + lengths)}). Output size is too small")
    return lengths


def _max_pool(input, kernel, stride, padding, dilation, lengths):
    """Values and flat input-plane indices of every window's first maximum."""
    windows = _windows(input, kernel, stride, padding, dilation, lengths, _pad_value(input))
    lead = input.dim() - len(kernel)
    values, offsets = windows.max(lead)
    sizes = list(input.shape[lead:])
    spatial = len(kernel)
    index = None
    remaining = offsets
    for axis in reversed(range(spatial)):
        offset_along = remaining % kernel[axis]
        remaining = remaining // kernel[axis]
        shape = [1] * spatial
        shape[axis] = lengths[axis]
        starts = _factories.arange(lengths[axis], dtype=_C.int64, device=input.device).reshape(shape)
        position = starts * stride[axis] - padding[axis] + offset_along * dilation[axis]
        place = math.prod(sizes[axis + 1:])
        index = position * place if index is None else index + position * place
    return values, index


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    kernel = _window_arg(kernel_size, 3, "max_pool3d: kernel_size must either be a single int, or a tuple of three "
                                         "ints")
    steps = _window_arg([] if stride is None else stride, 3, "max_pool3d: stride must either be omitted, a single "
                                                            "int, or a tuple of three ints", allow_empty=True)
    steps = steps or kernel
    pads = _window_arg(padding, 3, "max_pool3d: padding must either be a single int, or a tuple of three ints")
    dilations = _window_arg(dilation, 3, "max_pool3d: dilation must be either a single int, or a tuple of three ints")
    lengths = _check_windows("max_pool3d_with_indices_out_cpu_template", input, kernel, steps, pads, dilations,
                             ceil_mode, (4, 5), kernel_within_input=False)
    return _max_pool(input, kernel, steps, pads, dilations, lengths)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    values, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (values, indices) if return_indices else values


def average_pool(input, kernel, stride, padding, count_include_pad, divisor_override, lengths):
    """Window sums over divisor_override or each window's count of cells
    (Note [Pooling by strided windows])."""
    spatial = len(kernel)
    ones = [1] * spatial
    lead = input.dim() - spatial
    sums = _windows(input, kernel, stride, padding, ones, lengths, 0).sum(lead)
    if divisor_override is not None:
        divisor = divisor_override
    else:
        sizes = list(input.shape[lead:])
        if count_include_pad:
            plane = _C._ones([size + 2 * p for size, p in zip(sizes, padding)], input.dtype, input.device)
            counted = _windows(plane, kernel, stride, [0] * spatial, ones, lengths, 0)
        else:
            plane = _C._ones(sizes, input.dtype, input.device)
            counted = _windows(plane, kernel, stride, padding, ones, lengths, 0)
        divisor = counted.sum(0)
    if input.is_floating_point():
        return sums / divisor
    # Integer averages round toward zero, as PyTorch's integer division does.
    return sums.abs() // divisor * sums.sign()


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    kernel = _window_arg(kernel_size, 3, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints")
    steps = _window_arg([] if stride is None else stride, 3, "avg_pool3d: stride must be omitted, a single int, or "
                                                            "a tuple of three ints", allow_empty=True)
    steps = steps or kernel
    pads = _window_arg(padding, 3, "avg_pool3d: padding must be a single int, or a tuple of three ints")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    lengths = _check_windows("avg_pool3d", input, kernel, steps, pads, [1, 1, 1], ceil_mode, (4, 5),
                             kernel_within_input=True)
    return average_pool(input, kernel, steps, pads, count_include_pad, divisor_override, lengths)
