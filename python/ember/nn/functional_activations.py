"""The activations of torch.nn.functional beyond the core's own, as
compositions of core ops (differentiable through them)."""

import warnings

from .. import _C
from .._C import _nn

__all__ = ["celu", "celu_", "selu", "selu_", "mish", "hardswish", "hardsigmoid", "softsign", "softshrink",
           "hardshrink", "tanhshrink", "logsigmoid", "glu", "threshold", "threshold_", "prelu", "rrelu", "rrelu_",
           "softmin", "gumbel_softmax", "elu_", "leaky_relu_", "hardtanh_"]

# SELU's constants (Klambauer et al., 2017), as PyTorch spells them.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _maybe_inplace(input, inplace, name, fn):
    return _nn.apply_inplace(input, fn, name) if inplace else fn(input)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0 (it divides the input)")
    return _maybe_inplace(input, inplace, "celu", lambda x: _nn.elu(x / alpha, 1.0) * alpha)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def selu(input, inplace=False):
    return _maybe_inplace(input, inplace, "selu", lambda x: _nn.elu(x, _SELU_ALPHA) * _SELU_SCALE)


def selu_(input):
    return selu(input, inplace=True)


def elu_(input, alpha=1.0):
    return _nn.apply_inplace(input, lambda x: _nn.elu(x, alpha), "elu")


def leaky_relu_(input, negative_slope=0.01):
    return _nn.apply_inplace(input, lambda x: _nn.leaky_relu(x, negative_slope), "leaky_relu")


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _nn.apply_inplace(input, lambda x: _nn.hardtanh(x, min_val, max_val), "hardtanh")


def mish(input, inplace=False):
    return _maybe_inplace(input, inplace, "mish", lambda x: x * _C.tanh(_nn.softplus(x, 1.0, 20.0)))


# PyTorch's forms, (x + 3) clamped to [0, 6], then divided by 6, give its
# bits; hardtanh's gradient is 0 at the bounds, as PyTorch's is.
def hardsigmoid(input, inplace=False):
    return _maybe_inplace(input, inplace, "hardsigmoid", lambda x: _nn.hardtanh(x + 3.0, 0.0, 6.0) / 6.0)


def hardswish(input, inplace=False):
    return _maybe_inplace(input, inplace, "hardswish", lambda x: x * _nn.hardtanh(x + 3.0, 0.0, 6.0) / 6.0)


def softsign(input):
    return input / (input.abs() + 1)


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise ValueError(f"softshrink: lambda must be at least 0, got {lambd}")
    return _C.where(input > lambd, input - lambd, _C.where(input < -lambd, input + lambd, 0.0))


def hardshrink(input, lambd=0.5):
    return _C.where(input.abs() > lambd, input, 0.0)


def tanhshrink(input):
    return input - _C.tanh(input)


def logsigmoid(input):
    # log(sigmoid(x)) = -softplus(-x), which stays finite for large -x.
    return -_nn.softplus(-input, 1.0, 20.0)


def glu(input, dim=-1):
    size = input.shape[dim] if input.dim() > 0 else 0
    if input.dim() == 0 or size % 2 != 0:
        raise RuntimeError(f"glu: halving dimension {dim} needs an even size, got {size} (shape {list(input.shape)})")
    a, b = input.chunk(2, dim)
    return a * _C.sigmoid(b)


def threshold(input, threshold, value, inplace=False):
    return _maybe_inplace(input, inplace, "threshold",
                          lambda x: _C.where(x > threshold, x, x.detach().new_full(list(x.shape), value)))


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, inplace=True)


def prelu(input, weight):
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: weight must be 0-d or 1-d, got shape {list(weight.shape)}")
    if weight.numel() != 1:
        channels = input.shape[1] if input.dim() >= 2 else 0
        if weight.numel() != channels:
            raise RuntimeError(f"prelu: weight has {weight.numel()} slopes for an input of {channels} channels "
                               f"(shape {list(input.shape)})")
        weight = weight.reshape([1, channels] + [1] * (input.dim() - 2))
    return _C.where(input > 0, input, input * weight)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if not 0 <= lower <= upper:
        raise ValueError(f"rrelu: needs 0 <= lower <= upper, got lower={lower}, upper={upper}")

    def apply(x):
        if not training:
            return _nn.leaky_relu(x, (lower + upper) / 2)
        slopes = x.detach().new_empty(list(x.shape)).uniform_(lower, upper)
        return _C.where(x >= 0, x, x * slopes)
    return _maybe_inplace(input, inplace, "rrelu", apply)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def softmin(input, dim=None, dtype=None):
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
    return _C.softmax(-(input if dtype is None else input.to(dtype)), dim)



def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) for Gumbel(0, 1) noise g, from the global
    stream; hard gives the one-hot of its argmax, with the soft sample's
    gradient (straight-through), as PyTorch does."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    # -log of an Exponential(1) draw is Gumbel(0, 1).
    gumbels = -logits.detach().new_empty(list(logits.shape)).exponential_().log()
    soft = _C.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    one_hot = soft.detach().new_zeros(list(soft.shape)).scatter(dim, soft.argmax(dim, keepdim=True), 1.0)
    return one_hot - soft.detach() + soft
