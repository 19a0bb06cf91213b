"""Conv1d/2d/3d and ConvTranspose1d/2d/3d, with PyTorch's arguments, weight
layouts and initialization, and their Lazy forms, which take in_channels
from the first input."""

import math

from ... import _factories
from .. import functional as F
from .. import init
from ..functional_conv import same_padding
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

# In PyTorch's order, so that the sets its errors print come out alike.
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_PADDING_STRINGS = ("same", "valid")


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


class _ConvNd(Module):
    _spatial_dims = 0
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels ({in_channels}) and out_channels ({out_channels}) must be divisible "
                             f"by groups ({groups})")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(_PADDING_MODES)}, "
                             f"but got padding_mode='{padding_mode}'")
        n = self._spatial_dims
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride, self.dilation = _tuple(kernel_size, n), _tuple(stride, n), _tuple(dilation, n)
        self.output_padding, self.padding_mode = _tuple(output_padding, n), padding_mode
        self.transposed = self._transposed
        self.padding = self._check_padding(padding)
        weight_shape = ((in_channels, out_channels // groups) if self._transposed
                        else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(_factories.empty(*weight_shape, device=device, dtype=dtype))
        self.register_parameter("bias", Parameter(_factories.empty(out_channels, device=device, dtype=dtype))
                                if bias else None)
        self.reset_parameters()

    def _check_padding(self, padding):
        """An int, one per dim, or PyTorch's 'valid' / 'same' (kept as the string, as PyTorch keeps it)."""
        if not isinstance(padding, str):
            return _tuple(padding, self._spatial_dims)
        if padding not in _PADDING_STRINGS:
            raise ValueError(f"Invalid padding string {padding!r}, should be one of {set(_PADDING_STRINGS)}")
        if padding == "same" and any(s != 1 for s in self.stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        return padding

    def _conv_forward(self, input, conv):
        if self.padding_mode == "zeros":
            return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
        # Another mode pads first and convolves unpadded, as PyTorch does.
        if self.padding == "valid":
            edges = [(0, 0)] * self._spatial_dims
        elif self.padding == "same":
            edges = same_padding(self.kernel_size, self.dilation)
        else:
            edges = [(p, p) for p in self.padding]
        input = F.pad(input, [edge for pair in reversed(edges) for edge in pair], mode=self.padding_mode)
        return conv(input, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def reset_parameters(self):
        # The fan-in is weight.size(1) * kernel cells in both layouts, so a
        # transposed layer draws from out_channels / groups, as PyTorch's does.
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = self._spatial_dims
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * n:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    _spatial_dims = 1

    def forward(self, input):
        return self._conv_forward(input, F.conv1d)


class Conv2d(_ConvNd):
    _spatial_dims = 2

    def forward(self, input):
        return self._conv_forward(input, F.conv2d)


class Conv3d(_ConvNd):
    _spatial_dims = 3

    def forward(self, input):
        return self._conv_forward(input, F.conv3d)


class _ConvTransposeNd(_ConvNd):
    _transposed = True
    _functional = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} takes its padding as integers, not padding='{padding}'")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        """The output_padding that gives `output_size` (its spatial dims, or all of them), as PyTorch picks it."""
        if output_size is None:
            return self.output_padding
        n = self._spatial_dims
        lead = 2 if input.dim() == n + 2 else 1
        if len(output_size) == lead + n:
            output_size = output_size[lead:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} or {lead + n} "
                             f"elements (got {len(output_size)})")
        smallest = [(input.shape[lead + i] - 1) * self.stride[i] - 2 * self.padding[i]
                    + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i in range(n)]
        largest = [size + stride - 1 for size, stride in zip(smallest, self.stride)]
        if any(not low <= size <= high for size, low, high in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {smallest} to "
                             f"{largest} (for an input of {list(input.shape[lead:])})")
        return [size - low for size, low in zip(output_size, smallest)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(input, output_size)
        return self._functional(input, self.weight, self.bias, self.stride, self.padding, output_padding, self.groups,
                                self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _spatial_dims = 1
    _functional = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    _spatial_dims = 2
    _functional = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    _spatial_dims = 3
    _functional = staticmethod(F.conv_transpose3d)


class _LazyConvNd(LazyModuleMixin):
    """Builds the convolution with no channels, then gives it placeholders
    that the first input's channel count shapes."""

    def _make_lazy(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def _in_channels_of(self, input):
        unbatched = self._spatial_dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {input.shape}")
        return input.shape[input.dim() - unbatched]

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with no_grad():
                self.in_channels = self._in_channels_of(input)
                if self.in_channels % self.groups:
                    raise ValueError("in_channels must be divisible by groups")
                channels = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                            else (self.out_channels, self.in_channels // self.groups))
                self.weight.materialize(channels + self.kernel_size)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


class _LazyConv(_LazyConvNd):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvNd):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._make_lazy(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    cls_to_become = ConvTranspose3d
