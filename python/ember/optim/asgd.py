"""ASGD: SGD with a decaying rate, eta = lr / (1 + lambd lr t)^alpha, whose
average of the weights (`ax` in the state) starts after t0 steps
(PyTorch's update)."""

from .optimizer import Optimizer, check_hyperparameters, implementation_choices, step_counter, zeros_like


class ASGD(Optimizer):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, *,
                 maximize=False, foreach=None, differentiable=False, capturable=False):
        check_hyperparameters(lr=lr, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize,
                                      **implementation_choices(
                                          foreach=foreach, differentiable=differentiable, capturable=capturable)))

    def _update_group(self, group, params, grads, states):
        lr, lambd = group["lr"], group["lambd"]
        for param, grad, state in zip(params, grads, states):
            if not state:
                state.update(step=step_counter(), eta=step_counter(lr), mu=step_counter(1.0), ax=zeros_like(param))
            state["step"].add_(1)
            step = state["step"].item()
            grad = -grad if group["maximize"] else grad
            if group["weight_decay"]:
                grad = grad.add(param, alpha=group["weight_decay"])
            eta = state["eta"].item()
            param.mul_(1 - lambd * eta)
            param.add_(grad, alpha=-eta)
            mu = state["mu"].item()
            if mu != 1:
                state["ax"].add_(param.sub(state["ax"]).mul_(mu))
            else:
                state["ax"].copy_(param)
            state["eta"].fill_(lr / ((1 + lambd * lr * step) ** group["alpha"]))
            state["mu"].fill_(1 / max(1, step - group["t0"]))
