"""Adafactor: Adam-like steps whose second moment of a matrix (or of each
matrix in a stack, the last two dims) is kept factored as row and column
means, with PyTorch's relative step size, update clipping and decoupled
weight decay."""

from .. import _C
from .._type_info import finfo
from .optimizer import Optimizer, implementation_choices, lerp_, step_counter, zeros_like


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, _C.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                                      **implementation_choices(foreach=foreach), maximize=maximize))

    def _update_group(self, group, params, grads, states):
        lr, (eps1, eps2) = float(group["lr"]), group["eps"]
        for param, grad, state in zip(params, grads, states):
            if param.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            if not state:
                state["step"] = step_counter()
                if grad.dim() > 1:
                    # The mean square of each row and of each column of the last two dims.
                    state["row_var"] = _C._zeros(list(grad.shape[:-1]) + [1], grad.dtype, grad.device)
                    state["col_var"] = _C._zeros(list(grad.shape[:-2]) + [1, grad.shape[-1]], grad.dtype,
                                                 grad.device)
                else:
                    state["variance"] = zeros_like(grad)
            grad = -grad if group["maximize"] else grad
            floor = finfo(param.dtype).eps if eps1 is None else eps1
            step = state["step"].add_(1).item()
            # The second moment's weight on the new gradient falls as step^beta2_decay, and the
            # step size is relative to the parameter's RMS.
            new_weight = step ** group["beta2_decay"]
            relative_step = min(lr, 1 / step ** 0.5)
            scale = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * relative_step
            if group["weight_decay"] != 0:
                param.mul_(1 - lr * group["weight_decay"])
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                lerp_(row_var, (grad * grad).mean(dim=-1, keepdim=True), new_weight)
                lerp_(col_var, (grad * grad).mean(dim=-2, keepdim=True), new_weight)
                # The rank-one estimate: row means times column means over the mean of the row means.
                variance = (row_var @ col_var).div(row_var.mean(dim=-2, keepdim=True).clamp(min=floor))
            else:
                variance = lerp_(state["variance"], grad * grad, new_weight)
            # floor squared, as the update takes the square root
            update = variance.clamp(min=floor * floor).rsqrt().mul(grad)
            clipping = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
            param.add_(update, alpha=-scale / clipping)
