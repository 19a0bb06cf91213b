"""Adagrad: each parameter's step shrinks with its accumulated squared
gradients (PyTorch's update, learning-rate decay included)."""

from .. import _C
from .optimizer import Optimizer, check_hyperparameters, implementation_choices, step_counter


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_hyperparameters(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                              initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize,
                                      **implementation_choices(
                                          foreach=foreach, differentiable=differentiable, fused=fused)))
        # PyTorch creates Adagrad's state with the optimizer, not at its first step.
        for group in self.param_groups:
            for param in group["params"]:
                self.state[param] = {"step": step_counter(), "sum": _C._full(
                    list(param.shape), group["initial_accumulator_value"], param.dtype, param.device)}

    def _update_group(self, group, params, grads, states):
        for param, grad, state in zip(params, grads, states):
            state["step"].add_(1)
            step = state["step"].item()
            grad = -grad if group["maximize"] else grad
            if group["weight_decay"]:
                grad = grad.add(param, alpha=group["weight_decay"])
            clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
            state["sum"].add_(grad * grad)
            param.add_(grad / state["sum"].sqrt().add_(group["eps"]), alpha=-clr)
