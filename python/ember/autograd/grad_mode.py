"""no_grad, enable_grad, inference_mode and set_grad_enabled: context
managers that also decorate functions, as in PyTorch. Each saves the
thread's grad mode on entry and restores it on exit."""

import functools
import threading

from .. import _C

# Whether the thread is inside inference_mode(True), for is_inference_mode_enabled().
_inference = threading.local()


def is_inference_mode_enabled():
    return getattr(_inference, "enabled", False)


class _GradMode:
    """Sets grad mode to ``self._enabled`` inside a ``with`` block or a decorated function."""

    _enabled = True

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)
        return self

    def __exit__(self, *exc_info):
        _C._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run_in_mode(*args, **kwargs):
            # A fresh manager per call: decorated functions may recurse.
            with self.clone():
                return fn(*args, **kwargs)

        return run_in_mode

    def clone(self):
        return self.__class__()


class no_grad(_GradMode):
    _enabled = False


class enable_grad(_GradMode):
    _enabled = True


class inference_mode(_GradMode):
    """Records nothing, like no_grad (PyTorch's inference-tensor checks are not modelled)."""

    def __init__(self, mode=True):
        self._mode = mode
        self._enabled = not mode

    def __enter__(self):
        self._previous_inference = is_inference_mode_enabled()
        _inference.enabled = bool(self._mode)
        return super().__enter__()

    def __exit__(self, *exc_info):
        _inference.enabled = self._previous_inference
        return super().__exit__(*exc_info)

    def clone(self):
        return inference_mode(self._mode)


class set_grad_enabled(_GradMode):
    """Switches grad mode at once; used with ``with`` it switches back on exit."""

    def __init__(self, mode):
        self._enabled = bool(mode)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled)

    def __enter__(self):
        return self

    def __call__(self, fn):
        # As a decorator it applies per call, not from the decoration on.
        _C._set_grad_enabled(self._previous)
        return super().__call__(fn)

    def clone(self):
        return set_grad_enabled(self._enabled)
