"""torch.Tensor's methods for the functions Ember builds in Python
(_ops, _elementwise_math, _reductions, _shape_ops), their in-place forms,
and torch's aliases of existing methods."""

from ._C import Tensor
from . import _elementwise_math as math_ops
from . import _ops as ops
from . import _reductions as reductions
from . import _shape_ops as shape_ops

_ELEMENTWISE = ["clamp_min", "clamp_max", "exp2", "log2", "log10", "xlogy", "logit", "hypot", "logaddexp",
                "logaddexp2", "deg2rad", "rad2deg", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc", "frac", "fix",
                "float_power", "copysign", "signbit", "sgn", "positive", "heaviside", "fmax", "fmin", "isposinf",
                "isneginf", "isreal", "gcd", "lcm"]
# Those whose result has the input's shape and dtype, so that x.f_() is
# x.copy_(f(x)).
_IN_PLACE = ["square", "clamp_min", "clamp_max", "exp2", "log2", "log10", "xlogy", "logit", "hypot", "deg2rad",
             "rad2deg", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc", "frac", "fix", "float_power", "copysign",
             "sgn", "heaviside", "gcd", "lcm"]
_REDUCTIONS = ["nansum", "nanmean", "aminmax", "trace", "cumprod", "cummax", "cummin", "logcumsumexp", "dist"]
_OPS = ["isnan", "isinf", "isfinite", "square", "isclose", "allclose", "equal"]
_SHAPES = ["diagonal", "tile", "ravel", "swapdims", "unflatten", "diff", "rot90", "flipud", "fliplr", "tensor_split",
           "hsplit", "vsplit", "dsplit", "take_along_dim", "take", "kron", "dot", "inner", "mv", "cross"]
ALIASES = dict(math_ops.ALIASES, swapaxes="swapdims")


def _in_place(name, function):
    def method(self, *args, **kwargs):
        return self.copy_(function(self, *args, **kwargs))
    method.__name__ = name + "_"
    return method


def install():
    for module, names in ((math_ops, _ELEMENTWISE), (reductions, _REDUCTIONS), (shape_ops, _SHAPES), (ops, _OPS)):
        for name in names:
            if not hasattr(Tensor, name):
                setattr(Tensor, name, getattr(module, name))
    for name in _IN_PLACE:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _in_place(name, getattr(math_ops, name, None) or getattr(ops, name)))
    for alias, target in ALIASES.items():
        if not hasattr(Tensor, alias) and hasattr(Tensor, target):
            setattr(Tensor, alias, getattr(Tensor, target))


install()
