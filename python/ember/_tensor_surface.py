"""torch.Tensor's methods for the functions Ember builds in Python
(_ops, _elementwise_math, _reductions, _shape_ops), their in-place forms,
and torch's aliases of existing methods."""

from ._C import Tensor
from . import _elementwise_math as math_ops
from . import _matrix_ops as matrix_ops
from . import _ops as ops
from . import _reductions as reductions
from . import _shape_ops as shape_ops
from ._scatter import in_place_method

_ELEMENTWISE = ["clamp_min", "clamp_max", "exp2", "log2", "log10", "xlogy", "logit", "hypot", "logaddexp",
                "logaddexp2", "deg2rad", "rad2deg", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc", "frac", "fix",
                "float_power", "copysign", "signbit", "sgn", "positive", "heaviside", "fmax", "fmin", "isposinf",
                "isneginf", "isreal", "gcd", "lcm", "addcmul", "addcdiv", "is_floating_point", "is_complex"]
# Those whose result has the input's shape and dtype, so that x.f_() is
# x.copy_(f(x)).
_IN_PLACE = ["square", "clamp_min", "clamp_max", "exp2", "log2", "log10", "xlogy", "logit", "hypot", "deg2rad",
             "rad2deg", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc", "frac", "fix", "float_power", "copysign",
             "sgn", "heaviside", "gcd", "lcm", "addcmul", "addcdiv"]
_REDUCTIONS = ["nansum", "nanmean", "aminmax", "trace", "cumprod", "cummax", "cummin", "logcumsumexp", "dist",
               "median", "kthvalue", "quantile", "msort"]
_OPS = ["isnan", "isinf", "isfinite", "square", "isclose", "allclose", "equal"]
_SHAPES = ["diagonal", "tile", "ravel", "swapdims", "unflatten", "diff", "rot90", "flipud", "fliplr", "tensor_split",
           "hsplit", "vsplit", "dsplit", "take_along_dim", "take", "kron", "dot", "inner", "mv", "cross", "diag_embed"]
_MATRICES = ["addmv", "addr", "matrix_power"]
_IN_PLACE_MATRICES = ["addmv", "addr"]
ALIASES = dict(math_ops.ALIASES, swapaxes="swapdims")


def install():
    for module, names in ((math_ops, _ELEMENTWISE), (reductions, _REDUCTIONS), (shape_ops, _SHAPES), (ops, _OPS),
                         (matrix_ops, _MATRICES)):
        for name in names:
            if not hasattr(Tensor, name):
                setattr(Tensor, name, getattr(module, name))
    for name in _IN_PLACE:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place_method(getattr(math_ops, name, None) or getattr(ops, name)))
    for name in _IN_PLACE_MATRICES:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place_method(getattr(matrix_ops, name)))
    for alias, target in ALIASES.items():
        if not hasattr(Tensor, alias) and hasattr(Tensor, target):
            setattr(Tensor, alias, getattr(Tensor, target))


install()
