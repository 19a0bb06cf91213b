"""ember.nn.functional: PyTorch's torch.nn.functional names over the core's
composite ops (ember._C._nn), which are differentiable wherever their parts are."""

from .. import _C
from .._C import _nn
from . import _reduction
from .functional_interpolate import interpolate
from .functional_padding import pad_by_index
from .functional_attention import multi_head_attention_forward, scaled_dot_product_attention
from . import functional_activations, functional_conv, functional_ctc, functional_distance, functional_dropout
from . import functional_embedding, functional_losses, functional_normalization, functional_pooling
from . import (functional_fractional_pooling, functional_lp_pooling, functional_rearrange, functional_sampling,
               functional_unpooling, functional_window_pooling)
from .functional_activations import *  # noqa: F401,F403
from .functional_conv import *  # noqa: F401,F403
from .functional_ctc import *  # noqa: F401,F403
from .functional_distance import *  # noqa: F401,F403
from .functional_dropout import *  # noqa: F401,F403
from .functional_embedding import *  # noqa: F401,F403
from .functional_losses import *  # noqa: F401,F403
from .functional_normalization import *  # noqa: F401,F403
from .functional_pooling import *  # noqa: F401,F403
from .functional_rearrange import *  # noqa: F401,F403
from .functional_sampling import *  # noqa: F401,F403
from .functional_unpooling import *  # noqa: F401,F403
from .functional_window_pooling import *  # noqa: F401,F403
from .functional_lp_pooling import *  # noqa: F401,F403
from .functional_fractional_pooling import *  # noqa: F401,F403

__all__ = [
    "interpolate",
    "relu", "relu_", "leaky_relu", "gelu", "silu", "softplus", "elu", "hardtanh", "relu6", "sigmoid", "tanh",
    "softmax", "log_softmax", "dropout", "linear", "bilinear", "layer_norm", "batch_norm", "group_norm",
    "one_hot", "conv1d", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "pad", "cross_entropy",
    "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "normalize", "flatten", "scaled_dot_product_attention", "multi_head_attention_forward",
] + (functional_activations.__all__ + functional_conv.__all__ + functional_ctc.__all__ + functional_distance.__all__
     + functional_dropout.__all__ + functional_embedding.__all__ + functional_losses.__all__
     + functional_normalization.__all__ + functional_pooling.__all__ + functional_rearrange.__all__
     + functional_sampling.__all__ + functional_unpooling.__all__ + functional_window_pooling.__all__
     + functional_lp_pooling.__all__)


def _pair_list(value):
    """One int (used for every spatial dim) or one per spatial dim, as a list."""
    return [value] if isinstance(value, int) else list(value)


def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


def relu_(input):
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return _nn.apply_inplace(input, lambda x: _nn.leaky_relu(x, negative_slope), "leaky_relu")
    return _nn.leaky_relu(input, negative_slope)


def gelu(input, approximate="none"):
    return _nn.gelu(input, approximate)


def silu(input, inplace=False):
    return _nn.apply_inplace(input, _nn.silu, "silu") if inplace else _nn.silu(input)


def softplus(input, beta=1.0, threshold=20.0):
    return _nn.softplus(input, beta, threshold)


def elu(input, alpha=1.0, inplace=False):
    if inplace:
        return _nn.apply_inplace(input, lambda x: _nn.elu(x, alpha), "elu")
    return _nn.elu(input, alpha)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if inplace:
        return _nn.apply_inplace(input, lambda x: _nn.hardtanh(x, min_val, max_val), "hardtanh")
    return _nn.hardtanh(input, min_val, max_val)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


sigmoid = _C.sigmoid
tanh = _C.tanh


def softmax(input, dim, dtype=None):
    return _C.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim, dtype=None):
    return _C.log_softmax(input if dtype is None else input.to(dtype), dim)


def dropout(input, p=0.5, training=True, inplace=False):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if inplace:
        return _nn.apply_inplace(input, lambda x: _nn.dropout(x, p, training), "dropout")
    return _nn.dropout(input, p, training)


def linear(input, weight, bias=None):
    return _nn.linear(input, weight, bias)


def _check_bilinear(input1, input2, weight, bias):
    tensors = {"input1": input1, "input2": input2, "weight": weight, "bias": bias}
    if len({t.dtype for t in tensors.values() if t is not None}) > 1:
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(
            f"{name}: {str(t.dtype).removeprefix('ember.')}" for name, t in tensors.items() if t is not None))
    if weight.dim() != 3:
        raise RuntimeError("bilinear(): weight has to be 3-D (out_features, in1_features, in2_features), but got "
                           f"{weight.dim()}-D")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for dim, (size1, size2) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if size1 != size2:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: got {size1} and {size2}")
    for name, input, expected in (("input1", input1, weight.size(1)), ("input2", input2, weight.size(2))):
        if input.size(-1) != expected:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {input.size(-1)} but "
                               f"expected {expected}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.size(0)} but expected "
                           f"{weight.size(0)}")


def bilinear(input1, input2, weight, bias=None):
    """y = x1^T A x2 + b for each weight[o] = A, over any leading dims (or none)."""
    _check_bilinear(input1, input2, weight, bias)
    out_features, in1_features, in2_features = weight.shape
    lead = list(input1.shape[:-1])
    first = input1.reshape([-1, in1_features]).matmul(weight.permute(1, 0, 2).reshape([in1_features, -1]))
    pairs = first.reshape([-1, out_features, in2_features]).matmul(input2.reshape([-1, in2_features, 1]))
    out = pairs.reshape(lead + [out_features])
    return out if bias is None else out + bias


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    return _nn.layer_norm(input, _pair_list(normalized_shape), weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return _nn.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _nn.group_norm(input, num_groups, weight, bias, eps)


def one_hot(tensor, num_classes=-1):
    return _nn.one_hot(tensor, num_classes)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    input, padding = functional_conv.with_string_padding(input, weight, padding, stride, dilation, 1)
    return _nn.conv1d(input, weight, bias, _pair_list(stride), _pair_list(padding), _pair_list(dilation), groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    input, padding = functional_conv.with_string_padding(input, weight, padding, stride, dilation, 2)
    return _nn.conv2d(input, weight, bias, _pair_list(stride), _pair_list(padding), _pair_list(dilation), groups)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    pool = _nn.max_pool2d_with_indices if return_indices else _nn.max_pool2d
    return pool(input, _pair_list(kernel_size), [] if stride is None else _pair_list(stride), _pair_list(padding),
                _pair_list(dilation), bool(ceil_mode))


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if not ceil_mode and divisor_override is None:
        return _nn.avg_pool2d(input, _pair_list(kernel_size), [] if stride is None else _pair_list(stride),
                              _pair_list(padding), count_include_pad)
    return _avg_pool2d_by_windows(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _two(value):
    return [value, value] if isinstance(value, int) else list(value)


def _avg_pool2d_by_windows(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """avg_pool2d with PyTorch's ceil_mode and divisor_override, which the core's kernel does not take."""
    kernel, pads = _two(kernel_size), _two(padding)
    steps = kernel if stride is None else _two(stride)
    for k, p in zip(kernel, pads):
        if p > k // 2:
            raise ValueError(f"avg_pool2d: padding {p} should be at most half of the kernel size {k}")
    lengths = [functional_window_pooling.pooled_length(size, k, s, p, 1, ceil_mode)
               for size, k, s, p in zip(input.shape[-2:], kernel, steps, pads)]
    return functional_window_pooling.average_pool(input, kernel, steps, pads, count_include_pad, divisor_override,
                                                  lengths)


def adaptive_avg_pool2d(input, output_size):
    return _nn.adaptive_avg_pool2d(input, _pair_list(output_size))


# The 1-d pools are the 2-d ones over a height of 1: the input's last dim is
# the width, and max_pool2d's index h * W + w is then the position w itself.
def _single(value):
    return value if isinstance(value, int) else value[0]


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    width = _single(kernel_size)
    result = max_pool2d(input.unsqueeze(-2), [1, width], [1, width if stride is None else _single(stride)],
                        [0, _single(padding)], [1, _single(dilation)], ceil_mode, return_indices)
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    width = _single(kernel_size)
    return avg_pool2d(input.unsqueeze(-2), [1, width], [1, width if stride is None else _single(stride)],
                      [0, _single(padding)], ceil_mode, count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    return adaptive_avg_pool2d(input.unsqueeze(-2), [1, _single(output_size)]).squeeze(-2)


def pad(input, pad, mode="constant", value=None):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if mode == "constant":
        return _nn.pad(input, list(pad), 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument")
    return pad_by_index(input, [int(p) for p in pad], mode)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    return _nn.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    return _nn.nll_loss(input, target, weight, ignore_index, reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    if weight is not None:
        return _reduction.weighted(_nn.mse_loss(input, target, "none"), weight, reduction, "mse_loss")
    return _nn.mse_loss(input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    if weight is not None:
        return _reduction.weighted(_nn.l1_loss(input, target, "none"), weight, reduction, "l1_loss")
    return _nn.l1_loss(input, target, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    return _nn.smooth_l1_loss(input, target, reduction, beta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    return _nn.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    reduction = _reduction.resolve(size_average, reduce, reduction)
    return _nn.binary_cross_entropy_with_logits(input, target, weight, reduction, pos_weight)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    return input / input.norm(p, dim, keepdim=True).clamp(min=eps)


def flatten(input, start_dim=0, end_dim=-1):
    return input.flatten(start_dim, end_dim)
