"""RMSprop, centered or not, with momentum (PyTorch's update)."""

from .. import _C
from .optimizer import Optimizer, implementation_choices


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *,
                 maximize=False, capturable=False, foreach=None, differentiable=False):
        if lr < 0.0 or eps < 0.0 or momentum < 0.0 or weight_decay < 0.0 or alpha < 0.0:
            raise ValueError(f"Invalid RMSprop hyperparameters: lr={lr}, alpha={alpha}, eps={eps}, "
                             f"weight_decay={weight_decay}, momentum={momentum}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize,
                                      **implementation_choices(
                                          capturable=capturable, foreach=foreach, differentiable=differentiable)))

    def _update_group(self, group, params, grads, states):
        momentum, centered = group["momentum"], group["centered"]
        for param, state in zip(params, states):
            if not state:
                state["step"] = _C._zeros([], _C.float32, param.device)
                state["square_avg"] = _C._zeros(list(param.shape), param.dtype, param.device)
                if momentum > 0:
                    state["momentum_buffer"] = _C._zeros(list(param.shape), param.dtype, param.device)
                if centered:
                    state["grad_avg"] = _C._zeros(list(param.shape), param.dtype, param.device)
        _C._foreach.rmsprop_step(
            params, grads, [state["square_avg"] for state in states],
            [state["grad_avg"] for state in states] if centered else [],
            [state["momentum_buffer"] for state in states] if momentum > 0 else [],
            [state["step"] for state in states], lr=group["lr"], alpha=group["alpha"], eps=group["eps"],
            weight_decay=group["weight_decay"], momentum=momentum, centered=centered, maximize=group["maximize"])
