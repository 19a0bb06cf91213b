"""ember.<op> functions: the C++ ops of ember._C, plus the few composites
written here over them."""

from ._C import (  # noqa: F401  (re-exported)
    abs, acos, add, amax, amin, arccos, arcsin, arctan, arctan2, argmax, argmin, argsort, asin, atan, atan2,
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, bmm, cat, ceil, chunk, clamp, clip, concat, cos, cumsum,
    digamma, div, divide, eq, erf, erfc, erfinv, exp, expm1, flip, floor, floor_divide, gather, ge, gt, index_put,
    index_select, le, lgamma, log, log1p, log_softmax, logical_and, logical_not, logical_or, logical_xor, logsumexp,
    lt, masked_fill, matmul, max, maximum, mean, min, minimum, mm, mul, multiply, ne, neg,
    negative, nonzero, norm, pow, prod, reciprocal, relu, remainder, result_type, roll, round, rsqrt,
    scatter_add, sigmoid, sign, sin, softmax, sort, split, sqrt, stack, std, sub, subtract, sum, tan, tanh, topk,
    tril, triu, true_divide, trunc, var, where,
)


def _method(name):
    def call(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = f"ember.{name}(input, ...) is input.{name}(...)."
    return call


# Views and conversions live on Tensor; PyTorch also offers them as functions.
reshape = _method("reshape")
flatten = _method("flatten")
permute = _method("permute")
transpose = _method("transpose")
swapaxes = _method("swapaxes")
squeeze = _method("squeeze")
unsqueeze = _method("unsqueeze")
narrow = _method("narrow")
select = _method("select")
t = _method("t")
clone = _method("clone")
detach = _method("detach")
any = _method("any")
all = _method("all")
unbind = _method("unbind")
as_strided = _method("as_strided")


def square(input):
    return input * input


def isnan(input):
    return input != input


def isinf(input):
    return input.abs() == float("inf")


def isfinite(input):
    return (input == input) & (input.abs() != float("inf"))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input.dtype != other.dtype and not (input.dtype.is_floating_point and other.dtype.is_floating_point):
        raise RuntimeError(f"isclose: {input.dtype} and {other.dtype} are of different kinds")
    if not input.dtype.is_floating_point:
        return input == other
    close = (input == other) | ((input - other).abs() <= atol + rtol * other.abs())
    close = close & ~(input.isinf() ^ other.isinf())
    if equal_nan:
        close = close | (input.isnan() & other.isnan())
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def equal(input, other):
    return tuple(input.shape) == tuple(other.shape) and bool((input == other).all())


def numel(input):
    return input.numel()
