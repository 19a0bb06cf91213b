"""torch.autograd's anomaly mode switches. Ember's engine keeps no forward
traces and does not check backward results for NaN, so enabling it warns,
once, and changes nothing else; the flag reads back as set, so programs that
toggle it run."""

import contextlib
import warnings

_enabled = False
_warned = False


def is_anomaly_enabled():
    return _enabled


def is_anomaly_check_nan_enabled():
    return _enabled


def _set(mode):
    global _enabled, _warned
    _enabled = bool(mode)
    if _enabled and not _warned:
        _warned = True
        warnings.warn("anomaly detection: Ember's autograd engine does not record forward traces or check "
                      "backward results for NaN; training runs unchecked", UserWarning, stacklevel=3)


class set_detect_anomaly:  # noqa: N801  (PyTorch's name)
    """Sets the flag now; as a context manager, restores it on leaving."""

    def __init__(self, mode, check_nan=True):
        self.previous = _enabled
        _set(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        _set(self.previous)


@contextlib.contextmanager
def detect_anomaly(check_nan=True):
    with set_detect_anomaly(True, check_nan):
        yield
