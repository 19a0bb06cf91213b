"""torch.autograd.forward_ad over Ember's reverse-mode engine.

PyTorch carries a tangent beside each primal through every op. Ember's
dual tensors instead record the reverse-mode graph (a dual tensor requires
grad), and unpack_dual(y) computes y's tangent from the duals of the level
by differentiating a vector-Jacobian product, which is linear in its
cotangent, once more: J t = d/du <J^T u, t>, as func.jvp does. The values
are forward mode's; each unpack costs two backward passes, the ops must be
twice differentiable, and ops run under no_grad carry no tangent."""

import threading
from collections import namedtuple

from .. import _C
from .functional import forward_products
from .grad_mode import enable_grad

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", "primal tangent")

_state = threading.local()


def _levels():
    if not hasattr(_state, "levels"):
        _state.levels = []
    return _state.levels


def enter_dual_level():
    """Opens a level (one at a time, as in PyTorch) and returns its index."""
    levels = _levels()
    if levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    levels.append([])
    return len(levels) - 1


def exit_dual_level(*, level=None):
    levels = _levels()
    if not levels or (level is not None and level != len(levels) - 1):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created")
    levels.pop()


class dual_level:  # noqa: N801  (PyTorch's name)
    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()


def make_dual(tensor, tangent, *, level=None):
    """A tensor with `tensor`'s value whose tangent is `tangent`, for the ops run on it in this level."""
    levels = _levels()
    if not levels:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if list(tangent.shape) != list(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if not (tensor.dtype.is_floating_point and tangent.dtype.is_floating_point):
        raise ValueError("Expected both the primal and its tangent to have floating point dtypes, got "
                         f"{tensor.dtype} and {tangent.dtype}")
    with enable_grad():
        dual = tensor.view_as(tensor) if tensor.requires_grad else tensor.detach().requires_grad_()
    levels[-1].append((dual, tangent))
    return dual


def unpack_dual(tensor, *, level=None):
    """(primal, tangent): the tensor's value and its tangent in this level (None if no dual reaches it)."""
    levels = _levels()
    primal = tensor.detach() if isinstance(tensor, _C.Tensor) else tensor
    if not levels or not isinstance(tensor, _C.Tensor) or not tensor.requires_grad:
        return UnpackedDualTensor(primal, None)
    duals = levels[-1]
    for dual, tangent in duals:
        if dual is tensor:
            return UnpackedDualTensor(primal, tangent)
    if not duals:
        return UnpackedDualTensor(primal, None)
    with enable_grad():
        products, reached = forward_products([tensor], [dual for dual, _ in duals], [t for _, t in duals], False,
                                             "unpack_dual")
    return UnpackedDualTensor(primal, products[0] if reached else None)
