"""Activation modules: each is its nn.functional counterpart with the
arguments fixed at construction."""

from .. import functional as F
from .module import Module


class _Elementwise(Module):
    """forward(x) = F.<_function>(x, **self._arguments)."""

    _function = None

    def __init__(self, **arguments):
        super().__init__()
        self._arguments = arguments

    def forward(self, input):
        return type(self)._function(input, **self._arguments)

    def extra_repr(self):
        return ", ".join(f"{key}={value}" for key, value in self._arguments.items())


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU6(_Elementwise):
    _function = staticmethod(F.relu6)


class LeakyReLU(_Elementwise):
    _function = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(negative_slope=negative_slope, inplace=inplace)


class GELU(_Elementwise):
    _function = staticmethod(F.gelu)

    def __init__(self, approximate="none"):
        super().__init__(approximate=approximate)


class SiLU(_Elementwise):
    _function = staticmethod(F.silu)


class ELU(_Elementwise):
    _function = staticmethod(F.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha, inplace=inplace)


class Softplus(_Elementwise):
    _function = staticmethod(F.softplus)

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__(beta=beta, threshold=threshold)


class Hardtanh(_Elementwise):
    _function = staticmethod(F.hardtanh)

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(min_val=min_val, max_val=max_val, inplace=inplace)


class Sigmoid(_Elementwise):
    _function = staticmethod(F.sigmoid)


class Tanh(_Elementwise):
    _function = staticmethod(F.tanh)


class Softmax(_Elementwise):
    _function = staticmethod(F.softmax)

    def __init__(self, dim=None):
        super().__init__(dim=-1 if dim is None else dim)


class LogSoftmax(_Elementwise):
    _function = staticmethod(F.log_softmax)

    def __init__(self, dim=None):
        super().__init__(dim=-1 if dim is None else dim)
