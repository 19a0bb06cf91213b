"""The padding modules: ZeroPad, ConstantPad, ReflectionPad, ReplicationPad
and CircularPad in 1d, 2d and 3d, over F.pad."""

from .. import functional as F
from .module import Module


def _pairs(padding, dims):
    return tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * (2 * dims)


class _PadNd(Module):
    mode = "constant"
    dims = 2

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = _pairs(padding, self.dims)
        self.value = value

    def forward(self, input):
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}" if self.mode == "constant" else f"{self.padding}"


class ConstantPad1d(_PadNd):
    dims = 1


class ConstantPad2d(_PadNd):
    pass


class ConstantPad3d(_PadNd):
    dims = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    extra_repr = ZeroPad1d.extra_repr


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    extra_repr = ZeroPad1d.extra_repr


class ReflectionPad1d(_PadNd):
    mode, dims = "reflect", 1


class ReflectionPad2d(_PadNd):
    mode = "reflect"


class ReplicationPad1d(_PadNd):
    mode, dims = "replicate", 1


class ReplicationPad2d(_PadNd):
    mode = "replicate"


class CircularPad1d(_PadNd):
    mode, dims = "circular", 1


class CircularPad2d(_PadNd):
    mode = "circular"


class ReflectionPad3d(_PadNd):
    mode, dims = "reflect", 3


class ReplicationPad3d(_PadNd):
    mode, dims = "replicate", 3


class CircularPad3d(_PadNd):
    mode, dims = "circular", 3
