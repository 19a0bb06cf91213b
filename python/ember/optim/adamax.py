"""Adamax: Adam with the infinity norm of past gradients in place of their
second moment (PyTorch's update)."""

from .. import _C
from .optimizer import Optimizer, check_hyperparameters, implementation_choices, lerp_, step_counter, zeros_like


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, *,
                 maximize=False, foreach=None, differentiable=False, capturable=False):
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      maximize=maximize,
                                      **implementation_choices(
                                          foreach=foreach, differentiable=differentiable, capturable=capturable)))

    def _update_group(self, group, params, grads, states):
        beta1, beta2 = group["betas"]
        for param, grad, state in zip(params, grads, states):
            if not state:
                state.update(step=step_counter(), exp_avg=zeros_like(param), exp_inf=zeros_like(param))
            state["step"].add_(1)
            grad = -grad if group["maximize"] else grad
            if group["weight_decay"]:
                grad = grad.add(param, alpha=group["weight_decay"])
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            lerp_(exp_avg, grad, 1 - beta1)
            exp_inf.copy_(_C.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
            clr = group["lr"] / (1 - beta1 ** state["step"].item())
            param.add_(exp_avg / exp_inf, alpha=-clr)
