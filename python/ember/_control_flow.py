"""torch.cond and torch.while_loop run eagerly: the branch the predicate
picks, or the body while the condition holds (PyTorch traces them into a
graph under torch.compile and export; eager, its results are these); and
torch._assert."""

from . import _C

__all__ = ["cond", "while_loop"]


def _assert(condition, message):
    """`assert condition, message` as a function, which model code calls so that tracing keeps it."""
    assert condition, message


def _truth(value, what):
    if isinstance(value, _C.Tensor):
        if value.numel() != 1:
            raise RuntimeError(f"{what} must be a Python bool or a tensor with one element, got a tensor of shape "
                               f"{list(value.shape)}")
        return bool(value.item())
    return bool(value)


def cond(pred, true_fn, false_fn, operands=()):
    branch = true_fn if _truth(pred, "cond: pred") else false_fn
    return branch(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    carried = tuple(carried_inputs)
    while _truth(cond_fn(*carried), "while_loop: cond_fn's result"):
        carried = body_fn(*carried)
        carried = carried if isinstance(carried, tuple) else (carried,)
        if len(carried) != len(carried_inputs):
            raise RuntimeError(f"while_loop: body_fn returned {len(carried)} values for {len(carried_inputs)} "
                               "carried inputs")
    return carried
