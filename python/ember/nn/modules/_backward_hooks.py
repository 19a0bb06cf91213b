"""Module backward hooks (register_full_backward_hook and
register_full_backward_pre_hook), as PyTorch's BackwardHook runs them.

A call of a module with such hooks passes its tensor arguments through one
identity autograd Function and its outputs through another. The outputs'
node runs first in backward: it gives the pre-hooks the gradients of the
outputs, which they may replace, and keeps them. The arguments' node then
holds the gradients of the arguments: the hooks see (grad_input,
grad_output), grad_input with one entry per positional argument (None for
one that is not a tensor, zeros for a tensor that does not require grad),
and may replace it. When no argument requires grad, the hooks run from the
outputs' node with grad_input all None, and a warning says so."""

import warnings

from ... import _C
from ...autograd.function import Function


def _replaced(replaced, grads, kind, name):
    """What a hook returned in place of `grads` (named `name`): `grads` itself for None."""
    if replaced is None:
        return grads
    replaced = tuple(replaced) if isinstance(replaced, (tuple, list)) else (replaced,)
    if len(replaced) != len(grads):
        raise RuntimeError(f"{kind} returned an invalid number of {name}, got {len(replaced)}, but expected "
                           f"{len(grads)}")
    return replaced


def _run_hooks(module, grad_input, grad_output):
    for hook in list(module._backward_hooks.values()):
        grad_input = _replaced(hook(module, grad_input, grad_output), grad_input, "Backward hook", "grad_input")
    return grad_input


class _OutputsNode(Function):
    @staticmethod
    def forward(ctx, call, *outputs):
        ctx.call = call
        return tuple(output.view_as(output) for output in outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        call = ctx.call
        module = call.module
        for hook in list(module._backward_pre_hooks.values()):
            grad_outputs = _replaced(hook(module, grad_outputs), grad_outputs, "Backward pre hook", "grad_output")
        call.grad_output = grad_outputs
        if not call.inputs_need_grad and module._backward_hooks:
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.", stacklevel=3)
            _run_hooks(module, (None,) * call.argument_count, grad_outputs)
        return (None,) + tuple(grad_outputs)


class _InputsNode(Function):
    @staticmethod
    def forward(ctx, call, *inputs):
        ctx.call = call
        ctx.inputs = [(tuple(tensor.shape), tensor.dtype, tensor.device) for tensor in inputs]
        outputs = tuple(tensor.view_as(tensor) for tensor in inputs)
        ctx.mark_non_differentiable(*[out for out, tensor in zip(outputs, inputs) if not tensor.requires_grad])
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        call = ctx.call
        grads = [g if g is not None else _C._zeros(list(shape), dtype, device)
                 for g, (shape, dtype, device) in zip(grads, ctx.inputs)]
        grad_input = [None] * call.argument_count
        for position, g in zip(call.tensor_positions, grads):
            grad_input[position] = g
        grad_input = _run_hooks(call.module, tuple(grad_input), call.grad_output)
        return (None,) + tuple(grad_input[position] for position in call.tensor_positions)


class BackwardHookCall:
    """One call of a module with backward hooks: wraps its arguments before
    forward and its outputs after (a tensor or a tuple or list of them)."""

    def __init__(self, module):
        self.module = module
        self.grad_output = None
        self.argument_count = 0
        self.tensor_positions = []
        self.inputs_need_grad = False

    def wrap_arguments(self, args):
        self.argument_count = len(args)
        self.tensor_positions = [i for i, arg in enumerate(args) if isinstance(arg, _C.Tensor)]
        self.inputs_need_grad = any(args[i].requires_grad for i in self.tensor_positions)
        if not self.inputs_need_grad or not _C.is_grad_enabled():
            return args
        wrapped = _InputsNode.apply(self, *[args[i] for i in self.tensor_positions])
        args = list(args)
        for i, tensor in zip(self.tensor_positions, wrapped):
            args[i] = tensor
        return tuple(args)

    def wrap_outputs(self, result):
        single = isinstance(result, _C.Tensor)
        outputs = [result] if single else list(result) if isinstance(result, (tuple, list)) else []
        positions = [i for i, out in enumerate(outputs) if isinstance(out, _C.Tensor) and out.requires_grad]
        if not positions or not _C.is_grad_enabled():
            return result
        wrapped = _OutputsNode.apply(self, *[outputs[i] for i in positions])
        for i, tensor in zip(positions, wrapped):
            outputs[i] = tensor
        if single:
            return outputs[0]
        return type(result)(outputs)
