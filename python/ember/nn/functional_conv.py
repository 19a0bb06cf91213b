"""The convolutions the core has no kernel for, as composites over views,
matmul and index_add, so autograd derives every gradient from those parts and
every device that has them runs them:

- unfold (im2col): sliding windows of the zero-padded input (one as_strided
  view) copied into columns;
- fold (col2im): its adjoint, summing each column into the positions its
  patch covers with one index_add, then cropping the padding;
- conv_transpose1d/2d/3d: the weight's product with the input's columns, then
  col2im, as PyTorch's CPU slow path does, unless the backend has the
  convolution's input gradient (conv2d_backward_input, conv3d_backward_input),
  which is the transposed convolution.

conv3d itself is the core's (it checks arguments here, with PyTorch's errors).
"""

import math

from .. import _C, _factories
from .._C import _nn

__all__ = ["unfold", "fold", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv3d"]


def _fold_arg(name, value):
    """fold/unfold take an int or exactly two, as PyTorch's _pair does."""
    values = [value, value] if isinstance(value, int) else list(value)
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return values


def _conv_arg(name, value, n):
    """Convolutions take an int, or one or n values."""
    values = [value] if isinstance(value, int) else list(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={values}")
    return values


def _blocks(size, kernel, dilation, padding, stride):
    """How many windows fit along one dim, rounded toward zero as PyTorch's C++ does (its errors show it)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    return (span // stride if span >= 0 else -(-span // stride)) + 1


def _patches(padded, kernel, dilation, stride):
    """View (N, C, *kernel, *blocks) of (N, C, *spatial), reading padded[..., b * stride + k * dilation]."""
    # One as_strided view of a contiguous tensor rather than a Tensor.unfold
    # per dim: the core's as_strided gradient is wrong when its input's
    # elements overlap in memory, as a first unfold's windows do.
    x = padded.contiguous()
    lead = x.dim() - len(kernel)
    blocks = [(size - d * (k - 1) - 1) // s + 1 for size, k, d, s in zip(x.shape[lead:], kernel, dilation, stride)]
    steps = x.stride()[lead:]
    return x.as_strided(list(x.shape[:lead]) + list(kernel) + blocks,
                        list(x.stride()[:lead]) + [t * d for t, d in zip(steps, dilation)]
                        + [t * s for t, s in zip(steps, stride)])


def _col2im(columns, kernel, dilation, stride, blocks):
    """The adjoint of _patches without padding: columns (N, C, *kernel, *blocks) summed into
    (N, C, *full), full being the smallest extent all windows fit in."""
    n = len(kernel)
    full = [(b - 1) * s + d * (k - 1) + 1 for b, k, d, s in zip(blocks, kernel, dilation, stride)]
    # Each column entry's flat position in (*full), built by broadcasting one term per dim.
    index = _factories.zeros(*kernel, *blocks, dtype=_C.int64, device=columns.device)
    place = 1
    for axis in reversed(range(n)):
        along = [1] * (2 * n)
        along[axis] = kernel[axis]
        offset = _factories.arange(kernel[axis], dtype=_C.int64, device=columns.device).reshape(along)
        along = [1] * (2 * n)
        along[n + axis] = blocks[axis]
        start = _factories.arange(blocks[axis], dtype=_C.int64, device=columns.device).reshape(along)
        index = index + (offset * dilation[axis] + start * stride[axis]) * place
        place *= full[axis]
    batch, channels = columns.shape[0], columns.shape[1]
    flat = columns.reshape([batch, channels, math.prod(columns.shape[2:])])  # explicit: a batch may be empty
    summed = flat.new_zeros((batch, channels, place)).index_add(2, index.reshape([-1]), flat)
    return summed.reshape([batch, channels] + full)


def _grouped_matmul(weight, columns):
    """(g, M, K) @ (N, g, K, L) -> (N, g, M, L) as one bmm over N * g: the
    core's broadcasting matmul is several times slower than bmm here, and the
    copy of the weight for every sample is small."""
    batch, groups, inner, length = columns.shape
    weights = weight.expand([batch] + list(weight.shape)).reshape([batch * groups, weight.shape[1], inner])
    product = weights.bmm(columns.reshape([batch * groups, inner, length]))
    return product.reshape([batch, groups, weight.shape[1], length])


def _pad_spatial(input, edges):
    """Zeros (before, after) each spatial dim, in order; a negative edge crops."""
    flat = [edge for pair in reversed(edges) for edge in pair]  # F.pad's order: last dim first
    return _nn.pad(input, flat, 0) if any(flat) else input


def _crop(full, padding, size):
    """full[..., p : p + size] along each spatial dim, zeros where that runs past full's end."""
    return _pad_spatial(full, [(-p, s + p - have) for p, s, have in zip(padding, size, full.shape[2:])])


def _patch_args(name, kernel_size, dilation, padding, stride):
    """fold's and unfold's window arguments as pairs, checked as PyTorch does."""
    kernel, dilation, padding, stride = (_fold_arg(label, v) for label, v in (
        ("kernel_size", kernel_size), ("dilation", dilation), ("padding", padding), ("stride", stride)))
    for label, values, least in (("kernel size", kernel, 1), ("stride", stride, 1), ("dilation", dilation, 1),
                                 ("padding", padding, 0)):
        if any(v < least for v in values):
            word = "greater than zero" if least else "non-negative"
            raise RuntimeError(f"{name}: {label} should be {word}, but got {label}={tuple(values)}")
    return kernel, dilation, padding, stride


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    kernel, dilation, padding, stride = _patch_args("unfold", kernel_size, dilation, padding, stride)
    if input.dim() not in (3, 4) or any(extent == 0 for extent in input.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    batched = input.dim() == 4
    x = input if batched else input.unsqueeze(0)
    blocks = [_blocks(size, k, d, p, s) for size, k, d, p, s in zip(x.shape[2:], kernel, dilation, padding, stride)]
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[2:])}, kernel_size={tuple(kernel)}, "
                           f"dilation={tuple(dilation)}, padding={tuple(padding)}, calculated shape of the array "
                           f"of sliding blocks as {tuple(blocks)}, but its components must be at least one.")
    padded = _pad_spatial(x, [(p, p) for p in padding])
    columns = _patches(padded, kernel, dilation, stride).reshape(
        [x.shape[0], x.shape[1] * kernel[0] * kernel[1], blocks[0] * blocks[1]])
    return columns if batched else columns.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    size = _fold_arg("output_size", output_size)
    kernel, dilation, padding, stride = _patch_args("fold", kernel_size, dilation, padding, stride)
    if input.dim() not in (2, 3) or any(extent == 0 for extent in input.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    batched = input.dim() == 3
    x = input if batched else input.unsqueeze(0)
    if x.shape[1] % (kernel[0] * kernel[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size={tuple(kernel)}.")
    blocks = [_blocks(s_, k, d, p, s) for s_, k, d, p, s in zip(size, kernel, dilation, padding, stride)]
    if blocks[0] * blocks[1] != x.shape[2] or min(blocks) < 1:
        raise RuntimeError(f"Given output_size={tuple(size)}, kernel_size={tuple(kernel)}, dilation={tuple(dilation)},"
                           f" padding={tuple(padding)}, stride={tuple(stride)}, expected size of input's dimension 2 "
                           f"to match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={x.shape[2]}.")
    channels = x.shape[1] // (kernel[0] * kernel[1])
    columns = x.reshape([x.shape[0], channels] + kernel + blocks)
    result = _crop(_col2im(columns, kernel, dilation, stride, blocks), padding, size)
    return result if batched else result.squeeze(0)


def _check_conv(name, n, input, weight, bias, groups, transposed):
    """PyTorch's checks on a convolution's operands, in its order and words."""
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")
    if weight.dim() != n + 2:
        raise RuntimeError(f"{name}: expected a {n + 2}-d weight, but got weight of size {list(weight.shape)}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"{name}: input ({input.dtype}) and weight ({weight.dtype}) should have the same dtype")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    channels = input.shape[0 if input.dim() == n + 1 else 1]
    shown = list(input.shape) if input.dim() == n + 2 else [1] + list(input.shape)
    if transposed:
        if weight.shape[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                               f"but got weight of size {list(weight.shape)} instead")
        expected, outputs, given = weight.shape[0], weight.shape[1] * groups, "Given transposed=1, "
    else:
        expected, outputs, given = weight.shape[1] * groups, weight.shape[0], f"Given groups={groups}, "
    if channels != expected:
        raise RuntimeError(f"{given}weight of size {list(weight.shape)}, expected input{shown} to have {expected} "
                           f"channels, but got {channels} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != outputs):
        given = "Given transposed=1, " if transposed else "Given "
        raise RuntimeError(f"{given}weight of size {list(weight.shape)}, expected bias to be 1-dimensional "
                           f"with {outputs} elements, but got bias of size {list(bias.shape)} instead")


def _check_steps(stride, padding, dilation):
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")


def _with_bias(output, bias, n):
    return output if bias is None else output + bias.reshape([-1] + [1] * n)


def _conv_transpose(name, n, input, weight, bias, stride, padding, output_padding, groups, dilation):
    stride, padding, output_padding, dilation = (_conv_arg(label, v, n) for label, v in (
        ("stride", stride), ("padding", padding), ("output_padding", output_padding), ("dilation", dilation)))
    _check_conv(name, n, input, weight, bias, groups, transposed=True)
    _check_steps(stride, padding, dilation)
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"output_padding={tuple(output_padding)}, stride={tuple(stride)}, "
                           f"dilation={tuple(dilation)}")
    batched = input.dim() == n + 2
    x = input if batched else input.unsqueeze(0)
    spatial, kernel = list(x.shape[2:]), list(weight.shape[2:])
    size = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1
            for i, s, p, d, k, op in zip(spatial, stride, padding, dilation, kernel, output_padding)]
    if any(s < 1 for s in size):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, spatial))}). Calculated output size "
                           f"per channel: ({' x '.join(map(str, size))}). Output size is too small")
    # The backend's input gradient of the convolution where it has one; a
    # 1-d convolution is a 2-d one of height 1.
    lift = (lambda t: t.unsqueeze(-2)) if n == 1 else (lambda t: t)
    by_kernel = _nn.conv_transpose3d_by_kernel if n == 3 else _nn.conv_transpose2d_by_kernel
    lifted = max(n, 2)
    fused = by_kernel(lift(x), lift(weight), [1] * (lifted - n) + stride, [0] * (lifted - n) + padding,
                      [0] * (lifted - n) + output_padding, [1] * (lifted - n) + dilation, groups)
    if fused is not None:
        result = _with_bias(fused.squeeze(-2) if n == 1 else fused, bias, n)
        return result if batched else result.squeeze(0)
    batch, in_per_group = x.shape[0], weight.shape[0] // groups
    # columns[b, g, (o, *k), l] = sum_c weight[g, c, (o, *k)] * input[b, g, c, l]
    w = weight.reshape([groups, in_per_group, -1]).transpose(1, 2)
    columns = _grouped_matmul(w, x.reshape([batch, groups, in_per_group, math.prod(spatial)]))
    columns = columns.reshape([batch, groups * weight.shape[1]] + kernel + spatial)
    result = _with_bias(_crop(_col2im(columns, kernel, dilation, stride, spatial), padding, size), bias, n)
    return result if batched else result.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def same_padding(kernel, dilation):
    """padding='same' as (before, after) per dim: the odd cell of an even total goes after, as in PyTorch."""
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    return [(t // 2, t - t // 2) for t in totals]


def _resolve_padding(padding, kernel, stride, dilation, n):
    """(before, after) per dim for an int, a sequence, 'valid' or 'same'."""
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * n
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        return same_padding(kernel, dilation)
    return [(p, p) for p in _conv_arg("padding", padding, n)]


def with_string_padding(input, weight, padding, stride, dilation, n):
    """conv1d/conv2d's input and integer padding for any padding: 'valid', and 'same', whose one cell more after
    than before (an even kernel's) is padded onto the input here."""
    if not isinstance(padding, str):
        return input, padding
    if weight.dim() != n + 2:
        raise RuntimeError(f"conv{n}d: expected a {n + 2}-d weight, but got weight of size {list(weight.shape)}")
    edges = _resolve_padding(padding, list(weight.shape[2:]), _conv_arg("stride", stride, n),
                             _conv_arg("dilation", dilation, n), n)
    if all(before == after for before, after in edges):
        return input, [before for before, _ in edges]
    return _pad_spatial(input, edges), 0


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    stride, dilation = _conv_arg("stride", stride, 3), _conv_arg("dilation", dilation, 3)
    _check_conv("conv3d", 3, input, weight, bias, groups, transposed=False)
    input, padding = with_string_padding(input, weight, padding, stride, dilation, 3)
    padding = _conv_arg("padding", padding, 3)
    _check_steps(stride, padding, dilation)
    spatial = [s + 2 * p for s, p in zip(input.shape[-3:], padding)]
    kernel = list(weight.shape[2:])
    if any(d * (k - 1) + 1 > s for s, k, d in zip(spatial, kernel, dilation)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, spatial))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size")
    return _nn.conv3d(input, weight, bias, stride, padding, dilation, groups)
