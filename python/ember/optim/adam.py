"""Adam and AdamW (decoupled weight decay), with PyTorch's update order and
bias corrections, and amsgrad."""

from .. import _C
from .optimizer import Optimizer, implementation_choices


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if lr < 0.0 or eps < 0.0 or weight_decay < 0.0:
            raise ValueError(f"Invalid lr ({lr}), eps ({eps}) or weight_decay ({weight_decay})")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid betas: {betas}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      **implementation_choices(foreach=foreach, capturable=capturable,
                                                               differentiable=differentiable, fused=fused)))

    def _update_group(self, group, params, grads, states):
        for param, state in zip(params, states):
            if not state:
                state["step"] = _C._zeros([], _C.float32, param.device)
                state["exp_avg"] = _C._zeros(list(param.shape), param.dtype, param.device)
                state["exp_avg_sq"] = _C._zeros(list(param.shape), param.dtype, param.device)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = _C._zeros(list(param.shape), param.dtype, param.device)
        beta1, beta2 = group["betas"]
        _C._foreach.adam_step(
            params, grads, [state["exp_avg"] for state in states], [state["exp_avg_sq"] for state in states],
            [state["max_exp_avg_sq"] for state in states] if group["amsgrad"] else [],
            [state["step"] for state in states], lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
            weight_decay=group["weight_decay"], amsgrad=group["amsgrad"], maximize=group["maximize"],
            decoupled_weight_decay=group.get("decoupled_weight_decay", False))


class AdamW(Adam):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
