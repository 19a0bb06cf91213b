"""ember.autograd.Function: define forward and backward as static methods;
``apply`` runs forward without recording and, when an input requires grad,
records one node whose backward the C++ engine calls back into Python."""

from .. import _C

FunctionCtx = _C.FunctionCtx


class Function:
    """Subclass with ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``.

    ``ctx.save_for_backward(*tensors)`` / ``ctx.saved_tensors`` keep tensors
    (version-checked), ``ctx.mark_non_differentiable`` and
    ``ctx.needs_input_grad`` work as in PyTorch; other attributes may be set
    on ctx freely. backward returns one gradient (or None) per forward argument.
    """

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError("Function subclasses must define forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("Function subclasses must define backward(ctx, *grad_outputs)")

    @classmethod
    def apply(cls, *args):
        return _C._apply_function(cls, args)
