"""torch.Tensor's methods for the functions Ember builds in Python
(_ops, _elementwise_math, _reductions, _shape_ops), their in-place forms,
and torch's aliases of existing methods."""

from ._C import Tensor
from . import linalg
from . import _elementwise_math as math_ops
from . import _elementwise_ops as elementwise_ops
from . import _matrix_ops as matrix_ops
from . import _ops as ops
from . import _reductions as reductions
from . import _scatter as scatter_ops
from . import _searching as searching
from . import _shape_ops as shape_ops
from ._scatter import in_place_method
from ._shape_ops import in_place_view

_ELEMENTWISE = ["clamp_min", "clamp_max", "exp2", "log2", "log10", "xlogy", "logit", "hypot", "logaddexp",
                "logaddexp2", "deg2rad", "rad2deg", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc", "frac", "fix",
                "float_power", "copysign", "signbit", "sgn", "positive", "heaviside", "fmax", "fmin", "isposinf",
                "isneginf", "isreal", "gcd", "lcm", "addcmul", "addcdiv", "is_floating_point", "is_complex", "ldexp",
                "bitwise_left_shift", "bitwise_right_shift"]
# Those whose result has the input's shape and a dtype it can hold, so that
# x.f_() stores f(x) into x (_scatter.in_place_method).
_IN_PLACE = ["square", "clamp_min", "clamp_max", "exp2", "log2", "log10", "xlogy", "logit", "hypot", "deg2rad",
             "rad2deg", "sinh", "cosh", "asinh", "acosh", "atanh", "sinc", "frac", "fix", "float_power", "copysign",
             "sgn", "heaviside", "gcd", "lcm", "addcmul", "addcdiv", "ldexp", "bitwise_left_shift",
             "bitwise_right_shift"]
_REDUCTIONS = ["nansum", "nanmean", "aminmax", "trace", "cumprod", "cummax", "cummin", "logcumsumexp", "dist",
               "median", "nanmedian", "mode", "kthvalue", "quantile", "nanquantile", "msort", "renorm", "corrcoef",
               "cov"]
_OPS = ["isnan", "isinf", "isfinite", "square", "isclose", "allclose", "equal"]
_SHAPES = ["diagonal", "tile", "ravel", "swapdims", "swapaxes", "unflatten", "diff", "rot90", "flipud", "fliplr",
           "tensor_split", "hsplit", "vsplit", "dsplit", "take_along_dim", "take", "kron", "dot", "inner", "mv",
           "cross", "diag_embed", "diagflat"]
_MATRICES = ["addmv", "addr", "matrix_power"]
_SCATTERS = ["select_scatter", "slice_scatter", "diagonal_scatter"]
_SEARCHES = ["unique_consecutive"]
_IN_PLACE_MATRICES = ["addmv", "addr", "addmm", "addbmm", "baddbmm"]
# Tensor methods (bound in C++ or installed above) whose result has the
# tensor's shape and a dtype it can hold: comparisons and logical ops give
# bools, stored as 0 and 1 in the tensor's dtype.
_IN_PLACE_METHODS = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "cumsum",
                     "cumprod", "tril", "triu", "scatter_add", "renorm"]
# View ops whose in-place forms restride the tensor itself.
_IN_PLACE_VIEWS = ["squeeze", "unsqueeze", "t", "transpose", "swapdims", "swapaxes"]
ALIASES = dict(math_ops.ALIASES, divide="div")


def install():
    for module, names in ((math_ops, _ELEMENTWISE), (reductions, _REDUCTIONS), (shape_ops, _SHAPES), (ops, _OPS),
                         (matrix_ops, _MATRICES), (scatter_ops, _SCATTERS), (searching, _SEARCHES)):
        for name in names:
            if not hasattr(Tensor, name):
                setattr(Tensor, name, getattr(module, name))
    for name in _IN_PLACE:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place_method(getattr(math_ops, name, None) or getattr(ops, name)))
    for name in _IN_PLACE_MATRICES:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place_method(getattr(matrix_ops, name)))
    for name in _IN_PLACE_METHODS:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place_method(getattr(Tensor, name), name))
    for name in _IN_PLACE_VIEWS:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", in_place_view(getattr(Tensor, name), name + "_"))
    Tensor.nonzero = scatter_ops.nonzero
    # div with a rounding mode, over the C++ true division.
    Tensor.div = Tensor.divide = elementwise_ops.div
    Tensor.div_ = Tensor.divide_ = elementwise_ops.div_
    # clamp with tensor bounds, over the C++ clamp of scalar bounds.
    Tensor.clamp = Tensor.clip = math_ops.clamp
    Tensor.clamp_ = Tensor.clip_ = math_ops.clamp_
    # The conjugate transposes of real tensors are their transposes.
    Tensor.adjoint = lambda self: self.transpose(-2, -1)
    Tensor.mH = property(Tensor.adjoint)
    Tensor.H = property(lambda self: self.t())
    Tensor.pinverse = lambda self, rcond=1e-15: linalg.pinv(self, rtol=rcond)
    for alias, target in ALIASES.items():
        for suffix in ("", "_"):
            if not hasattr(Tensor, alias + suffix) and hasattr(Tensor, target + suffix):
                setattr(Tensor, alias + suffix, getattr(Tensor, target + suffix))
    Tensor.__lshift__ = math_ops.bitwise_left_shift
    Tensor.__rshift__ = math_ops.bitwise_right_shift
    Tensor.__ilshift__ = Tensor.bitwise_left_shift_
    Tensor.__irshift__ = Tensor.bitwise_right_shift_


install()
