"""RMSprop, centered or not, with momentum (PyTorch's update)."""

from .. import _C
from .optimizer import Optimizer


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *,
                 maximize=False):
        if lr < 0.0 or eps < 0.0 or momentum < 0.0 or weight_decay < 0.0 or alpha < 0.0:
            raise ValueError(f"Invalid RMSprop hyperparameters: lr={lr}, alpha={alpha}, eps={eps}, "
                             f"weight_decay={weight_decay}, momentum={momentum}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def _update(self, param, grad, group, state):
        alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = _C._zeros([], _C.float32, param.device)
            state["square_avg"] = _C._zeros(list(param.shape), param.dtype, param.device)
            if momentum > 0:
                state["momentum_buffer"] = _C._zeros(list(param.shape), param.dtype, param.device)
            if group["centered"]:
                state["grad_avg"] = _C._zeros(list(param.shape), param.dtype, param.device)
        state["step"].add_(1)
        if group["weight_decay"]:
            grad = grad + group["weight_decay"] * param
        square_avg = state["square_avg"]
        square_avg.mul_(alpha).add_(grad * grad * (1 - alpha))
        if group["centered"]:
            grad_avg = state["grad_avg"]
            grad_avg.add_((grad - grad_avg) * (1 - alpha))
            avg = (square_avg - grad_avg * grad_avg).sqrt() + eps
        else:
            avg = square_avg.sqrt() + eps
        if momentum > 0:
            buffer = state["momentum_buffer"]
            buffer.mul_(momentum).add_(grad / avg)
            param.sub_(buffer * group["lr"])
        else:
            param.sub_(grad / avg * group["lr"])
