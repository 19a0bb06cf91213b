"""Adam and AdamW (decoupled weight decay), with PyTorch's update order and
bias corrections, and amsgrad."""

import math

from .. import _C
from .optimizer import Optimizer


class Adam(Optimizer):
    _decoupled_weight_decay = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 maximize=False):
        if lr < 0.0 or eps < 0.0 or weight_decay < 0.0:
            raise ValueError(f"Invalid lr ({lr}), eps ({eps}) or weight_decay ({weight_decay})")
        if not (0.0 <= betas[0] < 1.0 and 0.0 <= betas[1] < 1.0):
            raise ValueError(f"Invalid betas: {betas}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize))

    def _update(self, param, grad, group, state):
        lr, (beta1, beta2), eps, weight_decay = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = _C._zeros([], _C.float32, param.device)
            state["exp_avg"] = _C._zeros(list(param.shape), param.dtype, param.device)
            state["exp_avg_sq"] = _C._zeros(list(param.shape), param.dtype, param.device)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _C._zeros(list(param.shape), param.dtype, param.device)
        state["step"].add_(1)
        step = int(state["step"])
        if weight_decay:
            if self._decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad + weight_decay * param
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.add_((grad - exp_avg) * (1 - beta1))  # lerp toward grad
        exp_avg_sq.mul_(beta2).add_(grad * grad * (1 - beta2))
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
        second_moment = exp_avg_sq
        if group["amsgrad"]:
            state["max_exp_avg_sq"].copy_(_C.maximum(state["max_exp_avg_sq"], exp_avg_sq))
            second_moment = state["max_exp_avg_sq"]
        denom = second_moment.sqrt() / bias_correction2_sqrt + eps
        param.sub_(exp_avg / denom * step_size)


class AdamW(Adam):
    _decoupled_weight_decay = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
