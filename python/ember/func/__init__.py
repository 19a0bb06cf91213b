"""torch.func's transforms over Ember's autograd: functional_call, grad,
grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap and stack_module_state.

PyTorch's transforms compose as function transforms (functorch). Here
`grad` and the Jacobians differentiate through the autograd graph with
ember.autograd.grad (create_graph, so they nest: grad(grad(f)) works), and
`vmap` calls the function once per slice of the mapped dims and stacks the
results: the values vmap gives wherever the function is pure, at the cost of
one call per batch element."""

import contextlib

from .. import _C
from ..autograd import functional as _functional
from ..autograd import grad as _grad
from ..autograd.grad_mode import enable_grad
from ..utils import _pytree

__all__ = ["functional_call", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "stack_module_state"]


@contextlib.contextmanager
def _swapped(module, tensors):
    """Each named parameter or buffer of `module` replaced by the given
    tensor while the block runs, then put back."""
    saved = []
    try:
        for name, tensor in tensors.items():
            owner = module
            *path, leaf = name.split(".")
            for part in path:
                owner = getattr(owner, part)
            registry = owner._parameters if leaf in owner._parameters else owner._buffers
            if leaf not in registry:
                raise AttributeError(f"functional_call: {type(module).__name__} has no parameter or buffer {name!r}")
            saved.append((registry, leaf, registry[leaf]))
            registry[leaf] = tensor
        yield
    finally:
        for registry, leaf, original in reversed(saved):
            registry[leaf] = original


def functional_call(module, parameter_and_buffer_dicts, args=(), kwargs=None, *, tie_weights=True, strict=False):
    """module(*args, **kwargs) with its parameters and buffers taken from the
    given dict (or dicts) for this call only."""
    tensors = {}
    for mapping in (parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list))
                    else (parameter_and_buffer_dicts,)):
        for name in mapping:
            if name in tensors:
                raise ValueError(f"functional_call: {name!r} appeared in multiple dictionaries")
        tensors.update(mapping)
    if strict:
        expected = {name for name, _ in module.named_parameters()} | {name for name, _ in module.named_buffers()}
        missing = sorted(expected - set(tensors))
        if missing:
            raise RuntimeError(f"functional_call: missing key(s): {', '.join(missing)}")
    with _swapped(module, tensors):
        return module(*(args if isinstance(args, tuple) else (args,)), **(kwargs or {}))


def _differentiated(args):
    """Whether an argument is itself differentiated (an outer transform, or
    the program's own graph): then results keep their graph, so transforms
    nest; otherwise they are plain tensors, as torch.func gives."""
    return any(isinstance(arg, _C.Tensor) and arg.requires_grad for arg in args)


def _kept(tensor, outer):
    return tensor if outer else tensor.detach()


def _positions(argnums):
    return (argnums,) if isinstance(argnums, int) else tuple(argnums)


def _leaves(tree):
    """The tensors of a nest of dicts, lists and tuples, in order."""
    if isinstance(tree, _C.Tensor):
        return [tree]
    if isinstance(tree, dict):
        return [leaf for value in tree.values() for leaf in _leaves(value)]
    if isinstance(tree, (list, tuple)):
        return [leaf for value in tree for leaf in _leaves(value)]
    raise TypeError(f"grad: expected tensors, or dicts, lists and tuples of them, but got {type(tree).__name__}")


def _rebuilt(tree, leaves):
    """`tree` with its tensors replaced, in order, by those of `leaves` (an iterator)."""
    if isinstance(tree, _C.Tensor):
        return next(leaves)
    if isinstance(tree, dict):
        return type(tree)((key, _rebuilt(value, leaves)) for key, value in tree.items())
    return type(tree)(_rebuilt(value, leaves) for value in tree)


def grad_and_value(func, argnums=0, has_aux=False):
    """A function giving (d func / d args[argnums], func(*args)); func returns
    a one-element tensor, or (it, aux) with has_aux. An argument may be a
    nest of dicts, lists and tuples of tensors (a module's parameters for
    functional_call); its gradient has the same structure."""
    def transformed(*args, **kwargs):
        positions = _positions(argnums)
        outer = any(leaf.requires_grad for p in positions for leaf in _leaves(args[p]))
        with enable_grad():
            args = list(args)
            for position in positions:
                fresh = iter([leaf if leaf.requires_grad else leaf.detach().requires_grad_()
                              for leaf in _leaves(args[position])])
                args[position] = _rebuilt(args[position], fresh)
            result = func(*args, **kwargs)
            value, aux = result if has_aux else (result, None)
            if not isinstance(value, _C.Tensor) or value.numel() != 1:
                raise RuntimeError("grad: the function must return a tensor with a single element")
            leaves = [_leaves(args[p]) for p in positions]
            found = _grad(value, [leaf for group in leaves for leaf in group], create_graph=True, allow_unused=True)
        found = iter([_kept(leaf.new_zeros(leaf.shape) if g is None else g, outer)
                      for leaf, g in zip([leaf for group in leaves for leaf in group], found)])
        trees = tuple(_rebuilt(args[p], found) for p in positions)
        gradient = trees[0] if isinstance(argnums, int) else trees
        value = _kept(value, outer)
        return (gradient, (value, aux)) if has_aux else (gradient, value)

    return transformed


def grad(func, argnums=0, has_aux=False):
    """d func / d args[argnums] as a function (with aux when has_aux)."""
    transformed = grad_and_value(func, argnums, has_aux)

    def gradient(*args, **kwargs):
        found, value = transformed(*args, **kwargs)
        return (found, value[1]) if has_aux else found

    return gradient


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn): vjp_fn(cotangent) gives the vector-Jacobian products."""
    with enable_grad():
        inputs = [p.detach().requires_grad_() for p in primals]
        result = func(*inputs)
        output, aux = result if has_aux else (result, None)

    outer = _differentiated(primals)

    def vjp_fn(cotangent):
        found = _grad(output, inputs, cotangent, retain_graph=True, create_graph=outer, allow_unused=True)
        return tuple(_kept(x.new_zeros(x.shape) if g is None else g, outer) for x, g in zip(inputs, found))

    return (_kept(output, outer), vjp_fn, aux) if has_aux else (_kept(output, outer), vjp_fn)


def _jacobian(func, argnums):
    def jacobian(*args):
        positions = _positions(argnums)

        def of_chosen(*chosen):
            full = list(args)
            for position, value in zip(positions, chosen):
                full[position] = value
            return func(*full)

        outer = _differentiated(args)
        found = _functional.jacobian(of_chosen, tuple(args[p] for p in positions), create_graph=True)
        found = tuple(_kept(block, outer) for block in found)
        return found[0] if isinstance(argnums, int) else found

    return jacobian


def jacrev(func, argnums=0, has_aux=False):
    if has_aux:
        raise NotImplementedError("jacrev(has_aux=True) is not supported")
    return _jacobian(func, argnums)


def jacfwd(func, argnums=0, has_aux=False, randomness="error"):
    """The Jacobian, computed by reverse mode here (the same values)."""
    if has_aux:
        raise NotImplementedError("jacfwd(has_aux=True) is not supported")
    return _jacobian(func, argnums)


def hessian(func, argnums=0):
    return _jacobian(_jacobian(func, argnums), argnums)


def _dims_per_leaf(in_dims, args, what="in_dims"):
    """One mapped dim (or None) per leaf of `args`: an entry of in_dims that is
    an int or None covers its whole argument, a container matches the
    argument's own structure, as torch.func.vmap reads in_dims (and out_dims
    against the results)."""
    dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
    if len(dims) != len(args):
        raise ValueError(f"vmap: {what} has {len(dims)} entries for {len(args)} values")
    per_leaf = []
    for arg, dim in zip(args, dims):
        leaves, spec = _pytree.tree_flatten(arg)
        if dim is None or isinstance(dim, int):
            per_leaf.extend([dim] * len(leaves))
            continue
        dim_leaves, dim_spec = _pytree.tree_flatten(dim)
        if dim_spec != spec:
            raise ValueError(f"vmap: {what} entry {dim!r} does not match the structure of its value")
        per_leaf.extend(dim_leaves)
    return per_leaf


def _stacked(results, out_dims):
    """The per-slice results (tensors or nests of them) stacked leaf by leaf."""
    first = results[0]
    dims = _dims_per_leaf(out_dims, tuple(first) if isinstance(first, tuple) else (first,), "out_dims")
    spec = _pytree.tree_structure(first)
    columns = zip(*(_pytree.tree_leaves(result) for result in results))
    return _pytree.tree_unflatten([_C.stack(list(column), dim) for column, dim in zip(columns, dims)], spec)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over dim `in_dims` of its arguments (None: not mapped; a
    tuple: one entry per argument; arguments may be nests of dicts, lists and
    tuples of tensors), its results (tensors or nests of them) stacked along
    `out_dims`. Keyword arguments are passed to every call unmapped."""
    def mapped(*args, **kwargs):
        leaves, spec = _pytree.tree_flatten(list(args))
        dims = _dims_per_leaf(in_dims, args)
        sizes = {leaf.shape[dim] for leaf, dim in zip(leaves, dims) if dim is not None}
        if not sizes:
            raise ValueError("vmap: at least one argument must be mapped over (in_dims all None)")
        if len(sizes) != 1:
            raise ValueError(f"vmap: the mapped dims have different sizes: {sorted(sizes)}")
        results = []
        for index in range(sizes.pop()):
            sliced = [leaf if dim is None else leaf.select(dim, index) for leaf, dim in zip(leaves, dims)]
            results.append(func(*_pytree.tree_unflatten(sliced, spec), **kwargs))
        return _stacked(results, out_dims)

    return mapped


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), the Jacobian-vector product with `tangents`), by
    differentiating the vector-Jacobian product, which is linear in its
    cotangent, once more (so it needs func twice differentiable)."""
    if len(primals) != len(tangents):
        raise RuntimeError(f"jvp: expected {len(primals)} tangents for {len(primals)} primals, got {len(tangents)}")
    for primal, tangent in zip(primals, tangents):
        if list(primal.shape) != list(tangent.shape):
            raise RuntimeError(f"jvp: tangent of shape {list(tangent.shape)} does not match its primal of shape "
                               f"{list(primal.shape)}")
    outer = _differentiated(primals) or _differentiated(tangents)
    with enable_grad():
        inputs = [p if p.requires_grad else p.detach().requires_grad_() for p in primals]
        result = func(*inputs)
        output, aux = result if has_aux else (result, None)
        outputs = [output] if isinstance(output, _C.Tensor) else list(output)
        pushed, _ = _functional.forward_products(outputs, inputs, list(tangents), outer, "jvp")
    products = [_kept(p, outer) for p in pushed]
    values = [_kept(o, outer) for o in outputs]
    if isinstance(output, _C.Tensor):
        values, products = values[0], products[0]
    else:
        values, products = type(output)(values), type(output)(products)
    return (values, products, aux) if has_aux else (values, products)


def stack_module_state(models):
    """(parameters, buffers) of equally shaped models, each name's tensors
    stacked along a new first dim: fresh leaves that require grad where the
    models' parameters do, for vmap over functional_call."""
    if not models:
        raise RuntimeError("stack_module_state: expected at least one model, got 0.")
    if len({type(model) for model in models}) != 1 or len({model.training for model in models}) != 1:
        raise RuntimeError("stack_module_state: expected all models to be of the same class and in the same "
                           "training mode")

    def stacked(named):
        first = dict(named(models[0]))
        return {name: _C.stack([dict(named(model))[name].detach() for model in models])
                .requires_grad_(tensor.requires_grad) for name, tensor in first.items()}

    return (stacked(lambda model: model.named_parameters()), stacked(lambda model: model.named_buffers()))
