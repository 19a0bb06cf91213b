"""Gradient clipping, in place on each parameter's .grad."""

import math

from ... import _C
from ...autograd.grad_mode import no_grad


def _grads(parameters):
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of `tensors` (gradients, say): their joint norm."""
    tensors = [tensors] if isinstance(tensors, _C.Tensor) else [t for t in tensors if t is not None]
    if not tensors:
        return _C._zeros([], None, _C.device("cpu"))
    norm_type = float(norm_type)
    with no_grad():
        norms = _C.stack([t.norm(norm_type) for t in tensors])
        total = norms.amax() if math.isinf(norm_type) else norms.norm(norm_type)
    if error_if_nonfinite and not math.isfinite(float(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients is non-finite, so it cannot "
                           "be clipped. Set error_if_nonfinite=False to skip this check.")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales every gradient by min(1, max_norm / (total_norm + 1e-6)), PyTorch's rule."""
    with no_grad():
        scale = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in _grads(parameters):
            g.mul_(scale.to(g.dtype))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales all gradients together so their joint norm is at most max_norm;
    returns the norm before clipping."""
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    grads = _grads(parameters)
    if not grads:
        return _C._zeros([], None, _C.device("cpu"))
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
