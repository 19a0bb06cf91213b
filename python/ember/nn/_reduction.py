"""The reductions of the losses, and the arguments that named them before
`reduction` did (`size_average`, `reduce`), which PyTorch still accepts with
a warning and older programs still pass."""

import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_ENUM = {"none": 0, "mean": 1, "sum": 2}


def get_enum(reduction):
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=2)
        return 1
    if reduction not in _ENUM:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _ENUM[reduction]


def legacy_get_string(size_average, reduce, emit_warning=True):
    """The reduction that `size_average` and `reduce` stand for (either may be None, meaning True)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "none" if not reduce else ("mean" if size_average else "sum")
    if emit_warning:
        _warn_legacy(reduction, stacklevel=2)
    return reduction


def _warn_legacy(reduction, stacklevel):
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  stacklevel=stacklevel + 1)


def _caller_outside_ember():
    """The stacklevel, counted from resolve's caller, of the first frame outside Ember's package: the user's call,
    however many of Ember's wrappers (autocast, out=) lie between."""
    frame, level = sys._getframe(2), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def resolve(size_average, reduce, reduction):
    """`reduction`, unless a caller passed the legacy arguments, which then decide it."""
    if size_average is None and reduce is None:
        return reduction
    reduction = legacy_get_string(size_average, reduce, emit_warning=False)
    _warn_legacy(reduction, stacklevel=_caller_outside_ember() + 1)
    return reduction


def reduce_loss(loss, reduction, name):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{name}: reduction must be 'mean', 'sum' or 'none', got '{reduction}'")


def weighted(loss, weight, reduction, name, mean_over_weights=True):
    """A loss scaled elementwise by `weight` and reduced; its mean divides by the weights' sum where
    PyTorch's does (mse_loss, l1_loss) and by the element count where it does not (huber_loss)."""
    if list(weight.shape) != list(loss.shape):
        raise ValueError(f"{name}: weight of shape {list(weight.shape)} must have the input's shape "
                         f"{list(loss.shape)}")
    loss = loss * weight
    if reduction == "mean" and mean_over_weights:
        return loss.sum() / weight.sum()
    return reduce_loss(loss, reduction, name)
