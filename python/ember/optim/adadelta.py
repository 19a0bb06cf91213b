"""Adadelta: steps scaled by running averages of squared gradients and of
squared updates (PyTorch's update)."""

from .optimizer import Optimizer, check_hyperparameters, implementation_choices, step_counter, zeros_like


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False):
        check_hyperparameters(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      **implementation_choices(
                                          foreach=foreach, capturable=capturable, differentiable=differentiable)))

    def _update_group(self, group, params, grads, states):
        rho, eps = group["rho"], group["eps"]
        for param, grad, state in zip(params, grads, states):
            if not state:
                state.update(step=step_counter(), square_avg=zeros_like(param), acc_delta=zeros_like(param))
            state["step"].add_(1)
            grad = -grad if group["maximize"] else grad
            if group["weight_decay"]:
                grad = grad.add(param, alpha=group["weight_decay"])
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).add_(grad * grad, alpha=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            acc_delta.mul_(rho).add_(delta * delta, alpha=1 - rho)
            param.add_(delta, alpha=-group["lr"])
