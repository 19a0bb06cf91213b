"""Fractional max pooling (Graham's): max pools whose windows start at
pseudo-random steps, so that the output size need not divide the input's,
as torch.nn.functional.fractional_max_pool2d/3d compute them. Note
[Fractional pooling windows] says how."""

import numbers

from .. import _C, _factories

# Note [Fractional pooling windows]
# For one plane, a uniform sample u in [0, 1) and alpha = (in - kernel) / (out
# - 1), output i reads the window starting at trunc((i + u) * alpha) - trunc(u
# * alpha), the last one at in - kernel; both computed in the input's dtype,
# as PyTorch's kernel does, so that given the same `_random_samples` (one u
# per plane and spatial dim, PyTorch's order) the windows, values and indices
# are PyTorch's. A window's values are gathered and the first largest (NaN
# wins) taken, its index the flat position in the plane; gradients flow
# through the gather. PyTorch's order of a plane's samples is (width, height)
# in 2-d and (time, height, width) in 3-d.

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]


def _sizes(value, dims, name):
    if isinstance(value, numbers.Number):
        return [value] * dims
    value = list(value)
    if len(value) != dims:
        raise ValueError(f"{name} must be a number or a sequence of {dims} numbers, got {value}")
    return value


def _starts(samples, size, out, kernel, dtype):
    """Window starts (N, C, out) for the planes' samples (N, C)."""
    steps = _factories.arange(out - 1, dtype=dtype, device=samples.device)
    if out > 1:
        alpha = _C.scalar_tensor(float(size - kernel), dtype=dtype) / float(out - 1)
        inner = ((steps + samples.unsqueeze(-1)) * alpha).trunc() - (samples * alpha).trunc().unsqueeze(-1)
    else:
        inner = steps.reshape([1, 1, 0]).expand(list(samples.shape) + [0])
    last = _factories.full(list(samples.shape) + [1], float(size - kernel), dtype=dtype, device=samples.device)
    return _C.cat([inner, last], -1).to(_C.int64) if out > 0 else last[..., :0].to(_C.int64)


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, samples, dims, name):
    if input.dim() not in (dims + 1, dims + 2):
        raise ValueError(f"{name}: expected {dims + 1}-D or {dims + 2}-D input, got {input.dim()}-D")
    batched = input.dim() == dims + 2
    x = input if batched else input.unsqueeze(0)
    spatial = list(x.shape[2:])
    kernel = [int(k) for k in _sizes(kernel_size, dims, "kernel_size")]
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        ratios = _sizes(output_ratio, dims, "output_ratio")
        if any(not 0 < r < 1 for r in ratios):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {ratios})")
        output_size = [int(size * ratio) for size, ratio in zip(spatial, ratios)]
    outs = [int(o) for o in _sizes(output_size, dims, "output_size")]
    for size, out, k in zip(spatial, outs, kernel):
        if out + k - 1 > size:
            raise RuntimeError(f"{name}(): pool size {k} too large relative to input size {size} for output "
                               f"size {out}")
    batch, channels = x.shape[0], x.shape[1]
    if samples is None:
        samples = _factories.rand(batch, channels, dims, dtype=x.dtype, device=x.device)
    elif list(samples.shape) != [batch, channels, dims]:
        raise RuntimeError(f"{name}(): expected _random_samples of shape {[batch, channels, dims]}, got "
                           f"{list(samples.shape)}")
    # PyTorch's order of a plane's samples: (width, height) in 2-d, (time, height, width) in 3-d.
    order = [1, 0] if dims == 2 else [0, 1, 2]
    starts = [_starts(samples[..., order[d]], spatial[d], outs[d], kernel[d], x.dtype) for d in range(dims)]
    # The flat index, in the plane, of every element of every window: (N, C, *outs, prod(kernel)).
    index = None
    for d in range(dims):
        offsets = starts[d].unsqueeze(-1) + _factories.arange(kernel[d], device=x.device)  # (N, C, out_d, k_d)
        shape = [batch, channels] + [1] * dims + [1] * dims
        shape[2 + d] = outs[d]
        shape[2 + dims + d] = kernel[d]
        stride = 1
        for later in spatial[d + 1:]:
            stride *= later
        term = (offsets * stride).reshape(shape)
        index = term if index is None else index + term
    window = 1
    for k in kernel:
        window *= k
    index = index.expand([batch, channels] + outs + kernel).reshape([batch, channels] + outs + [window])
    plane = x.reshape([batch, channels, -1])
    values = plane.gather(2, index.reshape([batch, channels, -1])).reshape([batch, channels] + outs + [window])
    largest = values.max(-1, keepdim=True)
    output = largest.values.squeeze(-1)
    indices = index.gather(-1, largest.indices).squeeze(-1)
    if not batched:
        output, indices = output.squeeze(0), indices.squeeze(0)
    return output, indices


def _pool_functions(dims):
    """fractional_max_pool{dims}d and its _with_indices form, PyTorch's signatures."""
    name = f"fractional_max_pool{dims}d"

    def with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                     _random_samples=None):
        return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, dims, name)

    def pool(input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        output, indices = with_indices(input, kernel_size, output_size, output_ratio,
                                       _random_samples=_random_samples)
        return (output, indices) if return_indices else output

    with_indices.__name__, pool.__name__ = f"{name}_with_indices", name
    return pool, with_indices


fractional_max_pool2d, fractional_max_pool2d_with_indices = _pool_functions(2)
fractional_max_pool3d, fractional_max_pool3d_with_indices = _pool_functions(3)
