"""SGD with momentum, dampening, Nesterov and weight decay (PyTorch's update)."""

from .. import _C
from .optimizer import Optimizer, implementation_choices, required


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0 or weight_decay < 0.0:
            raise ValueError(f"Invalid momentum ({momentum}) or weight_decay ({weight_decay})")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize,
                                      **implementation_choices(
                                          foreach=foreach, differentiable=differentiable, fused=fused)))

    def _update_group(self, group, params, grads, states):
        buffers = _C._foreach.sgd_step(
            params, grads, [state.get("momentum_buffer") for state in states], lr=group["lr"],
            momentum=group["momentum"], dampening=group["dampening"], weight_decay=group["weight_decay"],
            nesterov=group["nesterov"], maximize=group["maximize"])
        if group["momentum"]:
            for state, buffer in zip(states, buffers):
                state["momentum_buffer"] = buffer
