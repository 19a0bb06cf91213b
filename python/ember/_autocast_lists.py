"""Autocast's lists for the Python composites (Note [Autocast] in
runtime/include/ember/autocast.h): the C++ composites and catalogue ops cast
their arguments in the core; these decorators do the same for the ops
written in Python. No import beyond _C, so that any module can use them."""

import functools

from . import _C


def _cast_arguments(policy, args, kwargs):
    args = [_C._autocast_cast(a, policy) if isinstance(a, _C.Tensor) else a for a in args]
    kwargs = {k: _C._autocast_cast(v, policy) if isinstance(v, _C.Tensor) else v for k, v in kwargs.items()}
    return args, kwargs


def _autocast_policy(policy):
    """Marks a Python composite as one of autocast's lists: its tensor
    arguments are cast by `policy` ('lower_precision' or 'float32') while
    autocast is on for their device type, as the C++ composites do."""

    def mark(function):
        @functools.wraps(function)
        def run(*args, **kwargs):
            if _C._autocast_any_enabled():
                args, kwargs = _cast_arguments(policy, args, kwargs)
            return function(*args, **kwargs)

        return run

    return mark


lower_precision_op = _autocast_policy("lower_precision")
float32_op = _autocast_policy("float32")
