"""ember.autograd.Function: define forward and backward as static methods;
``apply`` runs forward without recording and, when an input requires grad,
records one node whose backward the C++ engine calls back into Python."""

import functools

from .. import _C
from .grad_mode import no_grad

FunctionCtx = _C.FunctionCtx


class Function:
    """Subclass with ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``,
    or with ``forward(*args)``, ``setup_context(ctx, inputs, output)`` and
    ``backward``, as in PyTorch.

    ``ctx.save_for_backward(*tensors)`` / ``ctx.saved_tensors`` keep tensors
    (version-checked), ``ctx.mark_non_differentiable``,
    ``ctx.set_materialize_grads`` and ``ctx.needs_input_grad`` work as in
    PyTorch; other attributes may be set on ctx freely. backward returns one
    gradient (or None) per forward argument, and gets zeros for the outputs
    no gradient reached unless ``ctx.set_materialize_grads(False)``.
    ``vmap`` runs such a function slice by slice, so ``generate_vmap_rule``
    needs nothing more.
    """

    generate_vmap_rule = False

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("Function subclasses must define forward(ctx, *args)")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not overridden: forward takes ctx itself")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("Function subclasses must define backward(ctx, *grad_outputs)")

    @classmethod
    def apply(cls, *args):
        separate_setup_context = cls.setup_context is not Function.setup_context
        return _C._apply_function(cls, args, separate_setup_context)


class _DifferentiatedOnce(Function):
    """Passes a once-differentiable backward's result on, refusing a second derivative."""

    @staticmethod
    def forward(ctx, result, name, *grad_outputs):
        # The grad_outputs are inputs only so that the graph of a second derivative reaches this node.
        ctx.name = name
        return result.view_as(result)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(f"trying to differentiate twice a function that was marked with "
                           f"@once_differentiable ({ctx.name})")


def once_differentiable(backward):
    """Runs a Function's backward without recording; differentiating its result
    again (create_graph=True) is an error naming the function, as in PyTorch."""

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with no_grad():
            results = backward(ctx, *grad_outputs)
        if not _C.is_grad_enabled() or not any(isinstance(g, _C.Tensor) and g.requires_grad for g in grad_outputs):
            return results
        single = not isinstance(results, tuple)
        marked = tuple(_DifferentiatedOnce.apply(r, backward.__qualname__, *grad_outputs)
                       if isinstance(r, _C.Tensor) else r for r in ((results,) if single else results))
        return marked[0] if single else marked

    return wrapper
