"""ember.nn.init: in-place initializers with PyTorch's fan rules, so fresh
layers start with PyTorch's statistics. Every function runs under no_grad
and returns its tensor."""

import math
import warnings

from ..autograd.grad_mode import no_grad


def calculate_gain(nonlinearity, param=None):
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
              "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = 1
    for extent in tensor.shape[2:]:
        receptive_field *= extent
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0):
    with no_grad():
        return tensor.uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    with no_grad():
        return tensor.normal_(mean, std)


def constant_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor, gain=1.0):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def _has_no_elements(tensor):
    """A zero-element tensor has no fan to scale by: kaiming leaves it, warning, as PyTorch does."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    if _has_no_elements(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    if _has_no_elements(tensor):
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode)))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """Normal values redrawn until they fall in [a, b]."""
    with no_grad():
        tensor.normal_(mean, std)
        outside = (tensor < a) | (tensor > b)
        while bool(outside.any()):
            redraw = tensor.new_empty(tuple(tensor.shape)).normal_(mean, std)
            tensor.copy_(tensor.where(~outside, redraw))
            outside = (tensor < a) | (tensor > b)
        return tensor


def eye_(tensor):
    """The identity in a 2-d tensor (ones on the diagonal)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.zero_()
        tensor.diagonal().fill_(1.0)
        return tensor


def dirac_(tensor, groups=1):
    """A convolution weight (3-, 4- or 5-d) that passes its input channels
    through: in each group, output channel i reads input channel i at the
    kernel's centre."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels = tensor.shape[0]
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    shared = min(per_group, tensor.shape[1])
    with no_grad():
        tensor.zero_()
        centre = tuple(size // 2 for size in tensor.shape[2:])
        for group in range(groups):
            for channel in range(shared):
                tensor[(group * per_group + channel, channel) + centre] = 1.0
        return tensor


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR factorization of a normal one,
    its columns' signs fixed by R's diagonal, as PyTorch makes it; a tensor of
    more dims is flattened to rows by the rest."""
    from .. import linalg

    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    columns = tensor.numel() // rows
    flat = tensor.new_empty((rows, columns)).normal_(0.0, 1.0)
    if rows < columns:
        flat = flat.t()
    q, r = linalg.qr(flat)
    q = q * r.diagonal().sign()
    if rows < columns:
        q = q.t()
    with no_grad():
        return tensor.copy_(q.reshape(tensor.shape)).mul_(gain)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-d tensor of normal values (std) with a `sparsity` fraction of each
    column set to zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, columns = tensor.shape
    zeros_per_column = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0.0, std)
        for column in range(columns):
            order = tensor.new_empty((rows,)).uniform_().argsort()
            tensor[order[:zeros_per_column], column] = 0.0
        return tensor


def _deprecated(initializer):
    """PyTorch's old names without the trailing underscore, with its warning."""
    def call(*args, **kwargs):
        warnings.warn(f"nn.init.{initializer.__name__[:-1]} is now deprecated in favor of nn.init."
                      f"{initializer.__name__}.", FutureWarning, stacklevel=2)
        return initializer(*args, **kwargs)

    call.__name__ = initializer.__name__[:-1]
    return call


uniform, normal, constant = _deprecated(uniform_), _deprecated(normal_), _deprecated(constant_)
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
orthogonal, sparse, eye, dirac = _deprecated(orthogonal_), _deprecated(sparse_), _deprecated(eye_), _deprecated(dirac_)
