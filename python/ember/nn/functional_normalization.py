"""Normalizations of torch.nn.functional beyond layer, batch and group
norm: rms_norm, instance_norm and local_response_norm."""

from .._C import _nn

__all__ = ["rms_norm", "instance_norm", "local_response_norm"]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if list(input.shape[input.dim() - len(shape):]) != shape:
        raise RuntimeError(f"rms_norm: normalized_shape {shape} does not end the input's shape {list(input.shape)}")
    if eps is None:
        # PyTorch's default: the dtype's machine epsilon.
        from .. import finfo
        eps = finfo(input.dtype).eps
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out * weight if weight is not None else out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    if input.dim() < 3:
        raise ValueError(f"instance_norm: expected an input of at least 3 dimensions (N, C, ...), got shape "
                         f"{list(input.shape)}")
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and running_var")
        return _nn.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    n, c = input.shape[0], input.shape[1]
    dims = tuple(range(2, input.dim()))
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    var = (centered * centered).mean(dims, keepdim=True)
    out = centered * (var + eps).rsqrt()
    if running_mean is not None and running_var is not None:
        count = input[0, 0].numel()
        unbiased = var.detach().reshape([n, c]).mean(0) * (count / max(count - 1, 1))
        running_mean.mul_(1 - momentum).add_(mean.detach().reshape([n, c]).mean(0) * momentum)
        running_var.mul_(1 - momentum).add_(unbiased * momentum)
    affine_shape = [1, c] + [1] * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(affine_shape)
    if bias is not None:
        out = out + bias.reshape(affine_shape)
    return out


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    if input.dim() < 3:
        raise ValueError(f"local_response_norm: expected 3D or higher input, got {input.dim()}D")
    if input.numel() == 0:
        return input
    from . import functional as F
    squared = (input * input).unsqueeze(1)
    # The sum over `size` neighbouring channels, centred as PyTorch pads it.
    n, c = input.shape[0], input.shape[1]
    rest = list(input.shape[2:])
    flat = squared.reshape([n, 1, c, -1])
    padded = F.pad(flat, (0, 0, size // 2, (size - 1) // 2))
    windows = F.avg_pool2d(padded, (size, 1), stride=1)
    average = windows.reshape([n, c] + rest)
    return input / (average * alpha + k) ** beta
