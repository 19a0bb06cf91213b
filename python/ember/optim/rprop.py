"""Rprop: each weight's own step size, grown by etas[1] while its gradient
keeps its sign and shrunk by etas[0] when the sign flips (when the step is
skipped), within step_sizes (PyTorch's update)."""

from .. import _C
from .optimizer import Optimizer, check_hyperparameters, implementation_choices, step_counter, zeros_like


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 maximize=False, capturable=False, foreach=None, differentiable=False):
        check_hyperparameters(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), maximize=maximize,
                                      **implementation_choices(
                                          capturable=capturable, foreach=foreach, differentiable=differentiable)))

    def _update_group(self, group, params, grads, states):
        shrink, grow = group["etas"]
        smallest, largest = group["step_sizes"]
        for param, grad, state in zip(params, grads, states):
            if not state:
                state.update(step=step_counter(), prev=zeros_like(param),
                             step_size=_C._full(list(param.shape), group["lr"], param.dtype, param.device))
            state["step"].add_(1)
            grad = -grad if group["maximize"] else grad
            agreement = (grad * state["prev"]).sign()
            factor = _C.where(agreement > 0, grow, _C.where(agreement < 0, shrink, 1.0)).to(param.dtype)
            state["step_size"].mul_(factor).clamp_(smallest, largest)
            grad = _C.where(agreement < 0, 0.0, grad).to(param.dtype)
            param.addcmul_(grad.sign(), state["step_size"], value=-1)
            state["prev"].copy_(grad)
