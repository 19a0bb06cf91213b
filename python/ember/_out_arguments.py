"""The `out=` argument of torch's functions, and the casting rule it follows
(Note [Out arguments])."""

import functools
import warnings

from . import _C
from ._dtype_names import dtype_name as _dtype_name

# Note [Out arguments]: the functions PyTorch gives an `out=` keyword take one
# here too (the list is OUT_FUNCTIONS below, checked against PyTorch 2.13's
# signatures). The result is computed as without it and then copied into
# `out`, which is returned: a tuple of tensors for a function that returns
# several (`max(x, 0)`, `sort`, `linalg.qr`), as a result of the function's
# own type. As in PyTorch:
# - `out` of another shape is resized to the result's, with a warning unless it
#   had no elements;
# - the result may be cast to out's dtype only where `can_cast` allows it (not
#   a floating result into an integer tensor, nor a number into a bool one);
# - `out` must be on the result's device;
# - with grad mode on, no argument may require grad: a write into `out` is not
#   differentiated;
# - a factory (`zeros`, `arange`, `rand`, ...) given no dtype makes out's dtype
#   on out's device.
# Nothing is written into `out` when any of these checks fails. Computing
# first and copying after makes `out=` one of the inputs safe
# (`add(x, y, out=x)`), at the cost of one pass over the result.

# The public functions of ember, ember.linalg and ember.special that take
# out= in PyTorch 2.13.
OUT_FUNCTIONS = {
    "": """abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr all amax amin aminmax any arange
        arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax argmin asin asinh atan atan2 atanh baddbmm
        bernoulli bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor bmm
        bucketize cat ceil chain_matmul cholesky_solve clamp clamp_max clamp_min clip column_stack concat
        concatenate copysign cos cosh cross cummax cummin cumprod cumsum deg2rad diag diff digamma div divide dot
        dstack empty eq erf erfc erfinv exp exp2 expm1 eye fix float_power floor floor_divide fmax fmin fmod frac
        full gather gcd ge ger histc greater greater_equal gt heaviside hstack hypot i0 igamma igammac index_add
        index_copy index_reduce index_select inner inverse isin isneginf isposinf kron kthvalue lcm ldexp le lerp
        less less_equal lgamma linspace log log10 log1p log2 log_softmax logspace logaddexp logaddexp2 logcumsumexp
        logical_and logical_not logical_or logical_xor logit logsumexp lt lu_unpack masked_select matmul
        matrix_power max maximum mean median min minimum mm msort mul multinomial multiply mv mvlgamma nan_to_num
        nanmean nansum ne neg negative nextafter nonzero norm normal not_equal ones orgqr outer polygamma pow prod
        quantile rad2deg rand randint randn randperm reciprocal remainder renorm round row_stack rsqrt scatter
        scatter_add scatter_reduce searchsorted sgn sigmoid sign signbit sin sinc sinh slogdet softmax sort sqrt
        square stack std sub subtract sum svd take take_along_dim tan tanh tensordot topk tril triu triu_indices true_divide
        trunc var vdot vstack where xlogy zeros""",
    "linalg": """cholesky cholesky_ex cond cross det eigh eigvalsh householder_product inv inv_ex lstsq lu lu_factor
        lu_factor_ex lu_solve matmul matrix_norm matrix_power matrix_rank multi_dot norm pinv qr slogdet solve
        solve_ex solve_triangular svd svdvals tensorinv tensorsolve vecdot vector_norm""",
    "special": """digamma entr erf erfc erfcx erfinv exp2 expit expm1 gammainc gammaincc gammaln i0 i0e i1 i1e log1p
        log_ndtr log_softmax logit logsumexp modified_bessel_i0 modified_bessel_i1 multigammaln ndtr ndtri
        polygamma psi round sinc xlog1py xlogy zeta""",
}

# Factories make out's dtype on out's device unless told otherwise.
FACTORIES = frozenset("arange empty eye full linspace logspace ones rand randint randn randperm triu_indices zeros".split())


def can_cast(from_, to):
    """Whether a value of dtype `from_` may be written into a tensor of dtype
    `to` by an in-place op or out=: not a floating value into an integer or
    bool tensor, nor an integer into a bool one (PyTorch's rule)."""
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return from_ == to or to != _C.bool


def _tensors_in(values):
    for value in values:
        if isinstance(value, _C.Tensor):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _tensors_in(value)


def _check_target(name, result, target):
    if not isinstance(target, _C.Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(target).__name__}")
    if not can_cast(result.dtype, target.dtype):
        raise RuntimeError(f"{name}(): result type {_dtype_name(result.dtype)} can't be cast to the desired output "
                           f"type {_dtype_name(target.dtype)}")
    if target.device != result.device:
        raise RuntimeError(f"{name}(): expected out tensor on {result.device} like the result, but got it on "
                           f"{target.device}")


def _write(name, result, target):
    if tuple(target.shape) != tuple(result.shape):
        if target.numel() != 0:
            warnings.warn(f"{name}(): an output with one or more elements was resized since it had shape "
                          f"{list(target.shape)}, which does not match the required output shape "
                          f"{list(result.shape)}. Resize it to zero elements first (out.resize_(0)) to reuse it "
                          "without this warning.", UserWarning, stacklevel=4)
        target.resize_(result.shape)
    target.copy_(result)


def _call_with_out(fn, name, args, kwargs, out):
    if _C.is_grad_enabled():
        for tensor in _tensors_in((*args, *kwargs.values(), out)):
            if tensor.requires_grad:
                raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                                   "differentiation, but one of the arguments requires grad.")
    several = isinstance(out, (tuple, list))
    if name in FACTORIES and not several:
        if not isinstance(out, _C.Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        kwargs.setdefault("dtype", out.dtype)
        kwargs.setdefault("device", out.device)
    result = fn(*args, **kwargs)
    if isinstance(result, _C.Tensor):
        if several:
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        _check_target(name, result, out)
        _write(name, result, out)
        return out
    if not several or len(out) != len(result):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(result)} Tensors")
    for value, target in zip(result, out):
        _check_target(name, value, target)
    for value, target in zip(result, out):
        _write(name, value, target)
    return type(result)(*out) if hasattr(result, "_fields") else type(result)(out)


def with_out(fn, name):
    """fn with PyTorch's out= keyword (Note [Out arguments])."""

    @functools.wraps(fn)
    def function(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        return _call_with_out(fn, name, args, kwargs, out)

    return function


def add_out_arguments(namespaces):
    """Gives each function of OUT_FUNCTIONS in namespaces[""] (ember),
    namespaces["linalg"] and namespaces["special"] its out= keyword."""
    for prefix, names in OUT_FUNCTIONS.items():
        namespace = namespaces[prefix]
        for name in names.split():
            setattr(namespace, name, with_out(getattr(namespace, name), name))
