"""RAdam: Adam whose adaptive step is rectified for the variance of its
early second-moment estimates (PyTorch's update, with its decoupled weight
decay option)."""

from .optimizer import Optimizer, check_hyperparameters, implementation_choices, lerp_, step_counter, zeros_like


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, maximize=False, foreach=None, capturable=False, differentiable=False):
        check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                                      **implementation_choices(
                                          foreach=foreach, capturable=capturable, differentiable=differentiable)))

    def _update_group(self, group, params, grads, states):
        lr, (beta1, beta2) = group["lr"], group["betas"]
        # The length of the approximated simple moving average, at its limit.
        rho_inf = 2 / (1 - beta2) - 1
        for param, grad, state in zip(params, grads, states):
            if not state:
                state.update(step=step_counter(), exp_avg=zeros_like(param), exp_avg_sq=zeros_like(param))
            state["step"].add_(1)
            step = state["step"].item()
            grad = -grad if group["maximize"] else grad
            if group["weight_decay"]:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * group["weight_decay"])
                else:
                    grad = grad.add(param, alpha=group["weight_decay"])
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            lerp_(exp_avg, grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
            bias_correction2 = 1 - beta2 ** step
            corrected_exp_avg = exp_avg / (1 - beta1 ** step)
            rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
            if rho_t > 5.0:
                rectification = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(group["eps"])
                param.add_(corrected_exp_avg * lr * adaptive_lr * rectification, alpha=-1.0)
            else:
                param.add_(corrected_exp_avg * lr, alpha=-1.0)
