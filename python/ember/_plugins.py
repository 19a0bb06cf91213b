"""Plugins from Python: explicit loading, the list of loaded and quarantined
plugins, devices, and autoload of pip-installed plugin wheels.

A plugin wheel declares an entry point in the group ``ember.plugins`` whose
object is a function returning a dict: ``{"path": <the .so>, "abi_major": 1}``
(or just the path), optionally with ``abi_minor``, ``distribution`` and
``version`` for the messages. Entry points load lazily, at the first question
about plugins or devices; ``EMBER_PLUGIN_AUTOLOAD=0`` turns that off. A plugin whose
entry point fails, whose ABI major differs, or whose library fails to load is
reported by plugins() with the reason and never breaks ``import ember``.
"""

import atexit
import os
import sys
import threading
import warnings

from . import _C

ENTRY_POINT_GROUP = "ember.plugins"


class EntryPointFailure:
    """A plugin wheel that never reached the core's loader, and why."""

    loaded = False
    num_kernels = 0
    device_type = ""

    def __init__(self, name, path, error):
        self.name, self.path, self.error = name, path, error

    def __repr__(self):
        return f"EntryPointFailure(name='{self.name}', quarantined: {self.error})"


_autoload_lock = threading.Lock()
_autoloaded = False
_entry_point_failures = []


def _plugin_spec(entry_point):
    spec = entry_point.load()
    spec = spec() if callable(spec) else spec
    if isinstance(spec, (str, os.PathLike)):
        spec = {"path": os.fspath(spec)}
    if not isinstance(spec, dict) or "path" not in spec:
        raise TypeError(f"entry point {entry_point.value} must give a path or a dict with 'path', got {spec!r}")
    return spec


def _check_abi(spec):
    """Refuses, before its library is opened, a plugin built for another ABI
    major: majors must match, and the minors are negotiated by the loader."""
    abi_major = spec.get("abi_major", _C.ABI_VERSION[0])
    if abi_major == _C.ABI_VERSION[0]:
        return
    plugin_abi = f"{abi_major}.{spec['abi_minor']}" if "abi_minor" in spec else f"{abi_major}.x"
    built = f"{spec['distribution']} {spec.get('version', '')}".rstrip() if "distribution" in spec else spec["path"]
    core_abi = f"{_C.ABI_VERSION[0]}.{_C.ABI_VERSION[1]}"
    raise RuntimeError(f"needs plugin ABI {plugin_abi} ({built}), but this core (ember {_C.__version__}) has "
                       f"plugin ABI {core_abi}; install the plugin's release for ABI {_C.ABI_VERSION[0]}")


def _load_entry_point(entry_point):
    try:
        spec = _plugin_spec(entry_point)
        _check_abi(spec)
        _C.load_plugin(spec["path"])
    except Exception as error:  # a broken plugin must never break ember
        _entry_point_failures.append(EntryPointFailure(entry_point.name, entry_point.value, str(error)))
        warnings.warn(f"ember: plugin '{entry_point.name}' from {entry_point.value} was not loaded: {error}",
                      RuntimeWarning, stacklevel=3)


# Note [No plugins from the current directory]
# Python puts the current directory on sys.path by itself (as '' for -c, -m
# and the REPL, or as its full path for -m), so importlib.metadata would
# read a *.dist-info that anyone left in the directory a user happens to run
# from, and autoload would import and run its entry point. The core's
# discovery never looks there either (EMBER_PLUGIN_PATH has no implicit
# entry, and an empty entry is skipped). So the current directory is left
# out of the entry-point search unless PYTHONPATH names it explicitly.
def _entry_point_search_path():
    cwd = os.path.realpath(os.getcwd())
    explicit = {os.path.realpath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    return [p for p in sys.path if p and (os.path.realpath(p) != cwd or cwd in explicit)]


def _declared_entry_points():
    """The ``ember.plugins`` entry points of the installed distributions, the
    first distribution of each name winning as in importlib.metadata."""
    from importlib.metadata import distributions

    seen, found = set(), []
    for distribution in distributions(path=_entry_point_search_path()):
        name = (distribution.metadata["Name"] or "").lower().replace("-", "_")
        if name in seen:
            continue
        seen.add(name)
        found.extend(ep for ep in distribution.entry_points if ep.group == ENTRY_POINT_GROUP)
    return found


def autoload():
    """Loads the plugins that installed wheels declare, once per process."""
    global _autoloaded
    with _autoload_lock:
        if _autoloaded:
            return
        _autoloaded = True
        if os.environ.get("EMBER_PLUGIN_AUTOLOAD", "1") == "0":
            return
        try:
            found = _declared_entry_points()
        except Exception as error:
            warnings.warn(f"ember: could not list '{ENTRY_POINT_GROUP}' entry points: {error}", RuntimeWarning)
            return
        for entry_point in found:
            _load_entry_point(entry_point)


def load_plugin(path):
    """Loads a plugin library; raises (and quarantines it) when it cannot load."""
    autoload()
    return _C.load_plugin(os.fspath(path))


def plugins():
    """Every plugin tried so far, loaded or quarantined (see each one's .error)."""
    autoload()
    return list(_C.plugins()) + list(_entry_point_failures)


def devices():
    autoload()
    return _C.devices()


def device_count(type):
    autoload()
    return _C.device_count(type)


def is_device_type_available(type):
    autoload()
    return _C.is_device_type_available(type)


def synchronize(device="cpu"):
    _C.synchronize(device)


# Note [Draining devices at exit]: a plugin may still be running work the
# program queued (the xpu plugin's OpenCL driver compiles a kernel on its
# own thread at the kernel's first launch) when the program ends. Python's
# exit then runs the C++ static destructors of every library while that
# thread is inside one of them (PoCL's LLVM), which crashes the process
# after it has done everything it was asked. So at interpreter exit every
# device of a loaded plugin is synchronized first, as CUDA's runtime drains
# its streams; an error there is the plugin's, printed to stderr, and exit
# goes on. A C++ program calls ember::synchronize itself before it returns.
def _drain_devices_at_exit():
    for info in _C.devices():
        if info.plugin and info.plugin != "cpu":
            try:
                _C.synchronize(info.device)
            except Exception as error:  # noqa: BLE001  (reported, exit goes on)
                print(f"ember: synchronizing {info.device} at exit failed: {error}", file=sys.stderr)


atexit.register(_drain_devices_at_exit)


def set_kernel_timeout(seconds):
    """Turns the kernel watchdog on: a kernel call that does not return within `seconds` raises
    RuntimeError naming its op, device and plugin, and that plugin is unusable from then on (its hung
    kernel cannot be stopped). None or 0 turns it off, the default unless EMBER_KERNEL_TIMEOUT_MS is
    set. With it on, each kernel call hands over to a helper thread: a few microseconds per op."""
    if seconds is None:
        seconds = 0
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"set_kernel_timeout: seconds must be a number or None, got {type(seconds).__name__}")
    if not seconds >= 0:
        raise ValueError(f"set_kernel_timeout: seconds must be >= 0 (0 or None turns it off), got {seconds}")
    milliseconds = int(round(seconds * 1000))
    if seconds > 0:
        milliseconds = max(milliseconds, 1)
    _C._set_kernel_timeout_ms(milliseconds)


def get_kernel_timeout():
    """The kernel watchdog's timeout in seconds, or None when it is off."""
    milliseconds = _C._kernel_timeout_ms()
    return None if milliseconds == 0 else milliseconds / 1000.0
