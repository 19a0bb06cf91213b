"""Muon: momentum SGD for matrices whose update is the momentum (or its
Nesterov form) orthogonalized by a quintic Newton-Schulz iteration in
bfloat16, with PyTorch's coefficients, learning rate adjustments and
decoupled weight decay."""

import math

from .. import _C
from .optimizer import Optimizer, zeros_like

_NEWTON_SCHULZ_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
_MOST_NEWTON_SCHULZ_STEPS = 99
_LR_ADJUSTMENTS = ("original", "match_rms_adamw")


def _bfloat16_product(a, b, c=None, alpha=1.0, beta=1.0):
    """alpha a @ b (+ beta c) from bfloat16 operands, accumulated in float32
    and rounded once to bfloat16, as PyTorch's bfloat16 matmul and addmm are."""
    product = a.float() @ b.float() * alpha
    return (product if c is None else product + beta * c.float()).bfloat16()


def _orthogonalize(matrix, coefficients, steps, eps):
    """U S' V^T for the SVD U S V^T of a matrix, S' near 1 (between about 0.5
    and 1.5: the coefficients trade convergence for a steep start), by a
    quintic Newton-Schulz iteration in bfloat16 on the wide orientation."""
    if steps > _MOST_NEWTON_SCHULZ_STEPS:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if matrix.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = matrix.shape[0] > matrix.shape[1]
    x = matrix.bfloat16()
    x = x.T if tall else x
    # the norm accumulated in float32 and rounded once, as PyTorch's bfloat16 norm is
    norm = x.float().norm().bfloat16().clamp(min=eps)
    x = (x.float() / norm.float()).bfloat16()
    for _ in range(steps):
        gram = _bfloat16_product(x, x.T)
        polynomial = _bfloat16_product(gram, gram, gram, alpha=c, beta=b)
        x = _bfloat16_product(polynomial, x, x, beta=a)
    return x.T if tall else x


def _lerp_(tensor, end, weight):
    """tensor.lerp_(end, weight) rounded as PyTorch's kernel rounds it: the
    weight taken in the tensor's dtype, end - tensor rounded, then one fused
    multiply-add (here in float64), from the nearer end. The bfloat16
    iteration after it would turn a last-bit difference into a visible one."""
    weight = _C._full([], weight, tensor.dtype, _C.device("cpu")).item()
    difference = (end - tensor).double()
    if weight < 0.5:
        return tensor.copy_(tensor.double() + difference * weight)
    return tensor.copy_(end.double() - difference * (1 - weight))


def _adjusted_lr(lr, adjustment, shape):
    """lr scaled so that orthogonalized updates of any shape have comparable
    RMS: by sqrt(max(1, rows / columns)) ("original", the default), or to
    match AdamW's (0.2 sqrt(max(rows, columns)), "match_rms_adamw")."""
    rows, columns = shape[:2]
    if adjustment is None or adjustment == "original":
        return lr * math.sqrt(max(1, rows / columns))
    if adjustment == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, columns))
    return lr


class Muon(Optimizer):
    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=_NEWTON_SCHULZ_COEFFICIENTS, eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        if isinstance(lr, _C.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _LR_ADJUSTMENTS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for param in group["params"]:
                if param.dim() != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{param.shape}")

    def _update_group(self, group, params, grads, states):
        lr, momentum = float(group["lr"]), group["momentum"]
        for param, grad, state in zip(params, grads, states):
            if param.is_complex():
                raise RuntimeError("Muon does not support complex parameters")
            if grad.dim() != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buffer = state.setdefault("momentum_buffer", zeros_like(grad))
            _lerp_(buffer, grad, 1 - momentum)
            update = _lerp_(grad.clone(), buffer, momentum) if group["nesterov"] else buffer
            update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
            param.mul_(1 - lr * group["weight_decay"])
            # the bfloat16 update widened first, so that the scaling rounds in the parameter's dtype
            param.add_(update.to(param.dtype), alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], param.shape))
