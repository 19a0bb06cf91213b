"""ember.accelerator: the device type programs run on when there is one
(``torch.accelerator``): the first device type other than cpu and meta
that a loaded plugin provides."""

from . import _C, _plugins


def current_accelerator(check_available=False):
    """The accelerator's device type as an ember.device (no index), or None
    when no loaded plugin provides one; with ``check_available``, also None
    when it has no devices (a plugin loaded on a machine without its
    hardware)."""
    for info in _plugins.plugins():
        if info.loaded and info.device_type and info.device_type not in ("cpu", "meta"):
            if check_available and _plugins.device_count(info.device_type) == 0:
                return None
            return _C.device(info.device_type)
    return None


def is_available():
    return current_accelerator(check_available=True) is not None


def device_count():
    """The accelerator's number of devices, 0 without one."""
    device_type = current_accelerator()
    return 0 if device_type is None else _plugins.device_count(device_type.type)


def synchronize(device=None):
    """Waits for the work queued on ``device`` (an index, a device or its
    name; the accelerator's device 0 when None)."""
    device_type = current_accelerator(check_available=True)
    if device_type is None:
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if device is None or isinstance(device, int):
        device = _C.device(device_type.type, device or 0)
    _C.synchronize(device if isinstance(device, _C.device) else _C.device(device))
