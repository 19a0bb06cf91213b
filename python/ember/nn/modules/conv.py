"""Conv1d and Conv2d, with PyTorch's initialization."""

import math

from ... import _factories
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


class _ConvNd(Module):
    _spatial_dims = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) must be divisible "
                             f"by groups ({groups})")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode '{padding_mode}' is not supported (only 'zeros')")
        n = self._spatial_dims
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = _tuple(kernel_size, n), _tuple(stride, n), _tuple(dilation, n)
        self.padding = self._resolve_padding(padding)
        self.weight = Parameter(_factories.empty(out_channels, in_channels // groups, *self.kernel_size,
                                                 device=device, dtype=dtype))
        self.bias = Parameter(_factories.empty(out_channels, device=device, dtype=dtype)) if bias else None
        self.reset_parameters()

    def _resolve_padding(self, padding):
        if padding == "valid":
            return (0,) * self._spatial_dims
        if padding == "same":
            if any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            if any(t % 2 for t in total):
                raise NotImplementedError("padding='same' needs an odd effective kernel size here")
            return tuple(t // 2 for t in total)
        return _tuple(padding, self._spatial_dims)

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if any(self.padding):
            text += f", padding={self.padding}"
        if any(d != 1 for d in self.dilation):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text


class Conv1d(_ConvNd):
    _spatial_dims = 1

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    _spatial_dims = 2

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
