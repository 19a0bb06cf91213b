"""NAdam: Adam with Nesterov momentum and a momentum decay schedule
(PyTorch's update, with its decoupled weight decay option)."""

from .. import _C
from .optimizer import Optimizer, check_hyperparameters, implementation_choices, lerp_, step_counter, zeros_like


class NAdam(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, maximize=False, foreach=None, capturable=False, differentiable=False):
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize,
                                      **implementation_choices(
                                          foreach=foreach, capturable=capturable, differentiable=differentiable)))

    def _update_group(self, group, params, grads, states):
        lr, (beta1, beta2), momentum_decay = group["lr"], group["betas"], group["momentum_decay"]
        for param, grad, state in zip(params, grads, states):
            if not state:
                state.update(step=step_counter(), mu_product=_C._full([], 1.0, _C.float32, _C.device("cpu")),
                             exp_avg=zeros_like(param), exp_avg_sq=zeros_like(param))
            state["step"].add_(1)
            step = state["step"].item()
            grad = -grad if group["maximize"] else grad
            if group["weight_decay"]:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * group["weight_decay"])
                else:
                    grad = grad.add(param, alpha=group["weight_decay"])
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
            mu_product = state["mu_product"].mul_(mu).item()
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            lerp_(exp_avg, grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
            denom = exp_avg_sq.div(1 - beta2 ** step).sqrt().add_(group["eps"])
            param.add_(grad / denom, alpha=-lr * (1.0 - mu) / (1.0 - mu_product))
            param.add_(exp_avg / denom, alpha=(-lr * mu_next) / (1.0 - mu_product * mu_next))
