"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp over
ember.autograd.grad. jvp is the double-backward construction (a vjp whose
cotangent is itself differentiated), as PyTorch's is; jacobian takes one
backward pass per output element (PyTorch's `vectorize=False`)."""

from .. import _C
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _tuple(values):
    return (values,) if isinstance(values, _C.Tensor) else tuple(values)


def _prepare(inputs, create_graph):
    """Inputs that require grad, fresh leaves unless the graph is kept."""
    return tuple(x if create_graph and x.requires_grad else x.detach().requires_grad_() for x in _tuple(inputs))


def _grads(outputs, inputs, cotangents, create_graph, name, strict):
    from . import grad

    differentiable = [o for o in outputs if o.requires_grad]
    if not differentiable:
        grads = [None] * len(inputs)
    else:
        pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
        grads = grad([o for o, _ in pairs], inputs, [c for _, c in pairs], create_graph=create_graph,
                     retain_graph=True, allow_unused=True)
    result = []
    for index, (x, g) in enumerate(zip(inputs, grads)):
        if g is None:
            if strict:
                raise RuntimeError(f"{name}: the output of the function is independent of input {index}, which "
                                   "strict=True does not allow")
            g = x.new_zeros(x.shape)
        result.append(g)
    return tuple(result)


def forward_products(outputs, inputs, tangents, create_graph, name, strict=False):
    """(J v for outputs computed from inputs, one per output, zeros where no input reaches; whether any input
    reaches them), by differentiating the vector-Jacobian product, linear in its cotangent, once more.
    Needs enable_grad."""
    cotangents = tuple(o.new_zeros(o.shape).requires_grad_() for o in outputs)
    transposed = _grads(outputs, inputs, cotangents, True, name, strict)
    # _grads fills the gradients of unreached inputs with zeros, which do not require grad.
    reached = any(t.requires_grad for t in transposed)
    return _grads(transposed, cotangents, tangents, create_graph, name, strict), reached


def _unwrap(values, was_tuple):
    return tuple(values) if was_tuple else values[0]


def _finish(values, create_graph):
    return tuple(v if create_graph else v.detach() for v in values)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the function's value and the vector-Jacobian product."""
    inputs_tuple = not isinstance(inputs, _C.Tensor)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        raw = func(*xs)
        outputs = _tuple(raw)
        if v is None:
            if any(o.numel() != 1 for o in outputs):
                raise RuntimeError("vjp: the function's output has more than one element, so v must be given")
            v = tuple(o.new_ones(o.shape) for o in outputs)
        products = _grads(outputs, xs, _tuple(v), create_graph, "vjp", strict)
    return _unwrap(_finish(outputs, create_graph), not isinstance(raw, _C.Tensor)), \
        _unwrap(_finish(products, create_graph), inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the function's value and the Jacobian-vector product."""
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        if v is None:
            if any(x.numel() != 1 for x in xs):
                raise RuntimeError("jvp: the input has more than one element, so v must be given")
            v = tuple(x.new_ones(x.shape) for x in xs)
        raw = func(*xs)
        outputs = _tuple(raw)
        products, _ = forward_products(outputs, xs, _tuple(v), create_graph, "jvp", strict)
    return _unwrap(_finish(outputs, create_graph), not isinstance(raw, _C.Tensor)), \
        _unwrap(_finish(products, create_graph), not isinstance(raw, _C.Tensor))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """d func / d inputs: for one input and one output, a tensor of shape
    output.shape + input.shape; tuples of them for tuples."""
    if strategy != "reverse-mode":
        raise NotImplementedError(f"jacobian: strategy {strategy!r} is not supported; use 'reverse-mode'")
    inputs_tuple = not isinstance(inputs, _C.Tensor)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        raw = func(*xs)
        outputs = _tuple(raw)
        blocks = []
        for output in outputs:
            flat = output.reshape(-1)
            rows = []
            for position in range(flat.numel()):
                cotangent = flat.new_zeros(flat.shape)
                cotangent[position] = 1.0
                rows.append(_grads((flat,), xs, (cotangent,), create_graph, "jacobian", strict))
            per_input = []
            for index, x in enumerate(xs):
                stacked = (_C.stack([row[index] for row in rows]) if rows
                           else x.new_zeros([0] + list(x.shape)))
                per_input.append(stacked.reshape(list(output.shape) + list(x.shape)))
            blocks.append(_unwrap(_finish(per_input, create_graph), inputs_tuple))
    return tuple(blocks) if not isinstance(raw, _C.Tensor) else blocks[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The second derivatives of a function with a one-element output."""
    inputs_tuple = not isinstance(inputs, _C.Tensor)

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, _C.Tensor) or out.numel() != 1:
            raise RuntimeError("hessian: the function must return a tensor with a single element")
        # The one element as a scalar, as PyTorch squeezes it: each gradient
        # has its input's shape.
        first = _grads((out.reshape(()),), xs, (out.new_ones(()),), True, "hessian", strict)
        return first if inputs_tuple else first[0]

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a function with a one-element output."""
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v): the same as vhp, the Hessian being symmetric."""
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(name, func, inputs, v, create_graph, strict):
    inputs_tuple = not isinstance(inputs, _C.Tensor)
    with enable_grad():
        xs = _prepare(inputs, create_graph)
        out = func(*xs)
        if not isinstance(out, _C.Tensor) or out.numel() != 1:
            raise RuntimeError(f"{name}: the function must return a tensor with a single element")
        if v is None:
            if any(x.numel() != 1 for x in xs):
                raise RuntimeError(f"{name}: the input has more than one element, so v must be given")
            v = tuple(x.new_ones(x.shape) for x in xs)
        first = _grads((out,), xs, (out.new_ones(out.shape),), True, name, strict)
        products = _grads(first, xs, _tuple(v), create_graph, name, strict)
    return (out if create_graph else out.detach()), _unwrap(_finish(products, create_graph), inputs_tuple)
