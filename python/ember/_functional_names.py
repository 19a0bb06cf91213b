"""torch's own names for functional ops (torch.conv2d, torch.dropout,
torch.layer_norm, ...), with torch's argument orders where they differ from
torch.nn.functional's, the Tensor methods PyTorch gives some of them
(x.prelu, x.hardshrink), and the in-place ops it also names at the top
level (torch.relu_(x), torch.exp_(x))."""

from ._C import Tensor
from .nn import functional as F

# Same arguments as their torch.nn.functional namesakes (less `inplace`).
SAME_AS_FUNCTIONAL = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                      "cosine_similarity", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "bilinear",
                      "prelu", "hardshrink", "celu", "selu", "threshold", "rrelu", "adaptive_avg_pool1d", "avg_pool1d",
                      "rms_norm", "channel_shuffle", "celu_", "selu_", "threshold_", "rrelu_"]


def dropout(input, p, train):
    return F.dropout(input, p, train)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def _pool(pool):
    def pooled(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return pool(input, kernel_size, stride or None, padding, dilation, ceil_mode)

    pooled.__name__ = pool.__name__
    return pooled


max_pool1d, max_pool2d, max_pool3d = (_pool(F.max_pool1d), _pool(F.max_pool2d), _pool(F.max_pool3d))


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as torch.adaptive_max_pool1d returns both."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


# torch.<name>(input, ...) is input.<name>(...) for these in-place ops.
INPLACE_METHODS = ["abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
                   "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_",
                   "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fill_", "fix_",
                   "floor_", "frac_", "gcd_", "i0_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_",
                   "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_",
                   "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_",
                   "zero_", "index_put_", "resize_as_"]


def _inplace_method(name):
    def inplace(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    inplace.__name__ = name
    return inplace


def dropout_(input, p, train):
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def rsub(input, other, alpha=1):
    """other - alpha * input."""
    return other - (input if alpha == 1 else input * alpha)


def install(namespace):
    for name in SAME_AS_FUNCTIONAL:
        namespace.setdefault(name, getattr(F, name))
    for name in ("dropout", "alpha_dropout", "feature_alpha_dropout", "layer_norm", "group_norm", "batch_norm",
                 "instance_norm", "embedding", "max_pool1d", "max_pool2d", "max_pool3d", "adaptive_max_pool1d",
                 "rsub", "dropout_", "alpha_dropout_"):
        namespace.setdefault(name, globals()[name])
    for name in INPLACE_METHODS:
        namespace.setdefault(name, _inplace_method(name))
    Tensor.prelu = lambda self, weight: F.prelu(self, weight)
    Tensor.hardshrink = lambda self, lambd=0.5: F.hardshrink(self, lambd)
