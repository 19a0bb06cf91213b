"""torch._foreach_*: an op applied to each tensor of a list (optimizers,
EMA updates and gradient norms written against PyTorch's private API use
them). Out-of-place forms return a tuple, in-place ones the list itself,
as PyTorch's do; each tensor goes through the ordinary op, so autograd
and every device work as for single tensors."""

import numbers

from . import _C

_UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
          "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
          "sinh", "sqrt", "tan", "tanh", "trunc"]
# Each binary op on one tensor and its operand (a number or a tensor).
_BINARY = {
    "add": lambda t, o, alpha: t.add(o, alpha=alpha), "sub": lambda t, o, alpha: t.sub(o, alpha=alpha),
    "mul": lambda t, o, alpha: t.mul(o), "div": lambda t, o, alpha: t.div(o), "pow": lambda t, o, alpha: t.pow(o),
    "maximum": lambda t, o, alpha: _C.maximum(t, o) if isinstance(o, _C.Tensor) else t.clamp(min=o),
    "minimum": lambda t, o, alpha: _C.minimum(t, o) if isinstance(o, _C.Tensor) else t.clamp(max=o),
    "clamp_max": lambda t, o, alpha: t.clamp(max=o), "clamp_min": lambda t, o, alpha: t.clamp(min=o),
}


def _checked(tensors, *others):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in others:
        if isinstance(other, (list, tuple)) and len(other) != len(tensors):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got {len(tensors)} and "
                               f"{len(other)}")
    return tensors


def _per_tensor(other, count):
    """`other` for each of `count` tensors: a list or tuple as it is, any other value (a number, a tensor to
    broadcast) repeated."""
    if isinstance(other, (list, tuple)):
        return list(other)
    return [other] * count


def _out_of_place(apply):
    def each(tensors, *args, **kwargs):
        return tuple(apply(tensors, *args, **kwargs))

    return each


def _in_place(apply):
    def each(tensors, *args, **kwargs):
        results = apply(tensors, *args, **kwargs)
        for tensor, result in zip(tensors, results):
            tensor.copy_(result)
        return tensors

    return each


def _unary(name):
    def apply(tensors):
        return [getattr(t, name)() for t in _checked(tensors)]

    return apply


def _binary(op):
    def apply(tensors, other, *, alpha=1):
        tensors = _checked(tensors, other)
        return [op(t, o, alpha) for t, o in zip(tensors, _per_tensor(other, len(tensors)))]

    return apply


def _pow_apply(tensors, exponent):
    if isinstance(tensors, numbers.Number):
        return [tensors ** e for e in _checked(exponent)]
    return _binary(_BINARY["pow"])(tensors, exponent)


def _pointwise(name):
    def apply(tensors, tensors1, tensors2, value=1):
        tensors = _checked(tensors, tensors1, tensors2)
        values = value.tolist() if isinstance(value, _C.Tensor) and value.dim() == 1 else value
        return [getattr(t, name)(a, b, value=v) for t, a, b, v in zip(tensors, tensors1, tensors2,
                                                                       _per_tensor(values, len(tensors)))]

    return apply


def _lerp(tensors, ends, weight):
    tensors = _checked(tensors, ends, weight)
    return [t.lerp(e, w) for t, e, w in zip(tensors, ends, _per_tensor(weight, len(tensors)))]


def _foreach_norm(tensors, ord=2, dtype=None):  # noqa: A002  (PyTorch's name)
    from .linalg import vector_norm

    return tuple(vector_norm(t, ord, dtype=dtype) for t in _checked(tensors))


def _foreach_max(tensors):
    return tuple(t.max() for t in _checked(tensors))


def _foreach_powsum(tensors, exponent):
    return tuple(t.abs().pow(exponent).sum() for t in _checked(tensors))


def _foreach_clone(tensors):
    return tuple(t.clone() for t in _checked(tensors))


def _foreach_copy_(tensors, sources, non_blocking=False):
    for tensor, source in zip(_checked(tensors, sources), sources):
        tensor.copy_(source)
    return tensors


def _foreach_zero_(tensors):
    for tensor in _checked(tensors):
        tensor.zero_()
    return tensors


def install(namespace):
    applies = {name: _unary(name) for name in _UNARY}
    applies.update({name: _binary(op) for name, op in _BINARY.items()})
    applies.update(pow=_pow_apply, addcmul=_pointwise("addcmul"), addcdiv=_pointwise("addcdiv"), lerp=_lerp)
    for name, apply in applies.items():
        namespace[f"_foreach_{name}"] = _out_of_place(apply)
        namespace[f"_foreach_{name}_"] = _in_place(apply)
    for function in (_foreach_norm, _foreach_max, _foreach_powsum, _foreach_clone, _foreach_copy_, _foreach_zero_):
        namespace[function.__name__] = function
