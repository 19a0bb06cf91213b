"""Per-device-type modules shaped like ``torch.cuda`` and ``torch.xpu``:
``ember.cuda``, ``ember.xpu`` and one for every device type a loaded plugin
provides, all made by device_module() with the same functions.

A device argument is an index, a device string or an ember.device of the
module's type, or None for the current device (Note [Current device]). A
type no plugin provides has no devices: ``is_available()`` is False and
``device_count()`` 0, as in PyTorch without a GPU."""

import functools
import sys
import threading
import types

from . import _C, _plugins, _streams
from ._legacy_constructors import tensor_types


def device_module(device_type):
    """The module of one device type, made on first use and kept in
    sys.modules as ``ember.<device_type>``."""
    name = f"{__package__}.{device_type}"
    if name not in sys.modules:
        sys.modules[name] = _make_module(name, device_type)
    return sys.modules[name]


# Note [Current device]
# As in PyTorch, each thread has a current device of each type, index 0 until
# set_device or a `with ember.<type>.device(i):` block changes it, and the
# module's functions given no device use it (streams, events, synchronize,
# memory statistics, device properties). An ember.device without an index
# ("cuda") still names index 0 when a tensor is made on it: the core, which
# resolves it, does not read the current device. A type without devices
# refuses what needs one as PyTorch without that backend does: an
# AssertionError when no loaded plugin provides the type (PyTorch's "not
# compiled with" it), a RuntimeError when one does but found no devices.
# Plugins initialize their devices when they load, so is_initialized() is
# whether the type has devices. The plugin ABI reports a device's name, total
# memory and compute units only: the compute capability reads (0, 0)
# (unknown), get_arch_list() is empty, and mem_get_info's free memory is the
# total less what Ember's allocator holds on the device.


class DeviceProperties:
    """What get_device_properties reports of one device, under the names of
    PyTorch's CUDA device properties (Note [Current device])."""

    def __init__(self, name, total_memory, multi_processor_count):
        self.name, self.total_memory, self.multi_processor_count = name, total_memory, multi_processor_count
        self.major = self.minor = 0

    def __repr__(self):
        return (f"DeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def _make_module(name, device_type):
    module = types.ModuleType(name, f"ember.{device_type}: streams, events and memory of '{device_type}' devices.")
    current = threading.local()

    def current_index():
        return getattr(current, "index", 0)

    def resolve(device=None):
        if device is None:
            device = current_index()
        if isinstance(device, int) and not isinstance(device, bool):
            return _C.device(device_type, device)
        if isinstance(device, (str, _C.device)):
            resolved = device if isinstance(device, _C.device) else _C.device(device)
            if resolved.type != device_type:
                raise ValueError(f"ember.{device_type}: expected a {device_type} device, but got {resolved}")
            return resolved if resolved.index is not None else _C.device(device_type, current_index())
        raise TypeError(f"ember.{device_type}: a device is an int, a str or an ember.device, not "
                        f"{type(device).__name__}")

    def device_index(device):
        """PyTorch's _get_device_index: an int as it is (a negative one stands
        for no device), None the current device."""
        if device is None:
            return current_index()
        if isinstance(device, int) and not isinstance(device, bool):
            return device
        return resolve(device).index

    def require_devices():
        """PyTorch's lazy initialization: refuses a type without devices (Note [Current device])."""
        if device_count() > 0:
            return
        if device_type not in plugin_device_types():
            raise AssertionError(f"Ember has no {device_type} backend: no loaded plugin provides {device_type} "
                                 f"devices")
        raise RuntimeError(f"No {device_type} devices are available")

    def check_stream(stream):
        if stream is not None and not isinstance(stream, _streams.Stream):
            raise TypeError(f"ember.{device_type}: expected an ember.Stream, but got {type(stream).__name__}")
        if stream is not None and stream.device_type != device_type:
            raise ValueError(f"ember.{device_type}: the stream is on {stream.device}, not a {device_type} device")
        return stream

    class Stream(_streams.Stream):
        __doc__ = f"A stream on a {device_type} device (index 0 when device is None)."

        def __init__(self, device=None, priority=0, **kwargs):
            if "_native" in kwargs:
                super().__init__(**kwargs)
            else:
                super().__init__(resolve(device), priority, **kwargs)

    class Event(_streams.Event):
        __doc__ = f"An event; record() and wait() without a stream use the current {device_type} stream."

        def __init__(self, enable_timing=False, blocking=False, interprocess=False):
            super().__init__(enable_timing, blocking, interprocess, device=resolve(None))

    Stream.__qualname__ = Stream.__name__ = "Stream"
    Event.__qualname__ = Event.__name__ = "Event"
    Stream.__module__ = Event.__module__ = name

    def is_available():
        return _plugins.device_count(device_type) > 0

    def device_count():
        return _plugins.device_count(device_type)

    def current_stream(device=None):
        return Stream(_native=_C._current_stream(resolve(device)))

    def default_stream(device=None):
        return Stream(_native=_C._Stream.default_stream(resolve(device)))

    def set_stream(stream):
        _streams.set_stream(check_stream(stream))

    def stream(stream):
        """``with ember.<type>.stream(s):`` runs the block's work on ``s``."""
        return _streams.StreamContext(check_stream(stream))

    def synchronize(device=None):
        _C.synchronize(resolve(device))

    def memory_stats(device=None):
        return _C.memory_stats(resolve(device))

    def memory_allocated(device=None):
        return memory_stats(device)["allocated_bytes"]

    def max_memory_allocated(device=None):
        return memory_stats(device)["peak_allocated_bytes"]

    def memory_reserved(device=None):
        return memory_stats(device)["reserved_bytes"]

    def memory_summary(device=None, abbreviated=False):
        """The caching allocator's statistics of the device as a table, laid out as torch.cuda.memory_summary
        (with the statistics Ember's allocator keeps)."""
        resolved = resolve(device)
        return _memory_summary(device_type, resolved.index if resolved.index is not None else 0,
                               _C.memory_stats(resolved))

    def reset_peak_memory_stats(device=None):
        _C.reset_peak_memory_stats(resolve(device))

    def empty_cache(device=None):
        """Returns every cached, unused block of the device (index 0 unless given) to the plugin."""
        _C.empty_cache(resolve(device))

    def manual_seed(seed):
        """Seeds the stream this type's random kernels draw from, which is the
        one stream of ember.manual_seed (Note [Per-device seeds]); without a
        device of this type it does nothing, as torch.cuda's without a GPU."""
        seed = int(seed)  # torch.cuda.manual_seed converts the same way
        if is_available():
            _C.manual_seed(seed)

    def manual_seed_all(seed):
        manual_seed(seed)

    def is_initialized():
        return is_available()

    def init():
        require_devices()

    def current_device():
        require_devices()
        # torch.cpu's: the one CPU device has no index.
        return "cpu" if device_type == "cpu" else current_index()

    def set_device(device):
        """Makes ``device`` this thread's current one (Note [Current device]);
        a negative index does nothing, as in PyTorch, and so does any on cpu."""
        index = device_index(device) if device_type != "cpu" else -1
        if index < 0:
            return
        require_devices()
        if index >= device_count():
            raise RuntimeError(f"invalid device ordinal: {device_type}:{index} of {device_count()} devices")
        current.index = index

    def exchange_device(index):
        """Makes index current and returns the index it replaces; -1 leaves it as it is."""
        if index < 0:
            return -1
        if not is_available():
            raise RuntimeError(f"Ember has no {device_type} device to make current")
        previous = current_index()
        set_device(index)
        return previous

    class device:
        __doc__ = f"``with ember.{device_type}.device(d):`` makes d the current {device_type} device in the block."

        def __init__(self, device):
            self.idx = device_index(device)
            self.prev_idx = -1

        def __enter__(self):
            self.prev_idx = exchange_device(self.idx)

        def __exit__(self, *exc_info):
            self.idx = exchange_device(self.prev_idx)
            return False

    class device_of(device):
        __doc__ = f"device(obj's device) for a tensor on a {device_type} device; otherwise leaves the current one."

        def __init__(self, obj):
            super().__init__(obj.device.index if obj.device.type == device_type else -1)

    def get_device_properties(device=None):
        require_devices()
        index = device_index(device)
        if not 0 <= index < device_count():
            raise AssertionError("Invalid device id")
        info = next(info for info in _plugins.devices() if info.device == _C.device(device_type, index))
        return DeviceProperties(info.name, info.total_memory, info.compute_units)

    def get_device_name(device=None):
        return get_device_properties(device).name

    def get_device_capability(device=None):
        properties = get_device_properties(device)
        return properties.major, properties.minor

    def mem_get_info(device=None):
        """(free, total) bytes of the device (Note [Current device])."""
        total = get_device_properties(device).total_memory
        return max(total - memory_reserved(device), 0), total

    def get_arch_list():
        return []

    def ipc_collect():
        """Ember shares no device memory between processes, so there is none to collect."""
        require_devices()

    for function in (is_available, device_count, current_stream, default_stream, set_stream, stream, synchronize,
                     memory_stats, memory_summary, memory_allocated, max_memory_allocated, memory_reserved,
                     reset_peak_memory_stats, empty_cache, manual_seed, manual_seed_all, is_initialized, init,
                     current_device, set_device, get_device_properties, get_device_name, get_device_capability,
                     mem_get_info, get_arch_list, ipc_collect):
        function.__module__ = name
        setattr(module, function.__name__, function)
    device.__module__ = device_of.__module__ = name
    module.device, module.device_of = device, device_of
    module.Stream, module.Event, module.StreamContext = Stream, Event, _streams.StreamContext
    for type_name, tensor_type in tensor_types(name, device_type).items():
        setattr(module, type_name, tensor_type)
    module.amp = sys.modules[f"{name}.amp"] = _make_amp_module(f"{name}.amp", device_type)
    return module


def _make_amp_module(name, device_type):
    """``ember.<type>.amp``: autocast and GradScaler of one device type, as
    torch.cuda.amp and torch.cpu.amp (which PyTorch keeps, deprecated)."""
    from . import amp

    module = types.ModuleType(name, f"{name}: autocast and GradScaler for '{device_type}' devices.")

    class autocast(amp.autocast):
        __doc__ = f"ember.autocast('{device_type}', ...)."

        def __init__(self, enabled=True, dtype=None, cache_enabled=True):
            super().__init__(device_type, dtype, enabled, cache_enabled)

    class GradScaler(amp.GradScaler):
        __doc__ = f"ember.amp.GradScaler('{device_type}', ...)."

        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            super().__init__(device_type, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    for cls in (autocast, GradScaler):
        cls.__module__ = name
        setattr(module, cls.__name__, cls)
    module.custom_fwd = functools.partial(amp.custom_fwd, device_type=device_type)
    module.custom_bwd = functools.partial(amp.custom_bwd, device_type=device_type)
    return module


def _format_size(size, reference):
    # torch.cuda.memory_summary's: the unit follows the first column's value.
    prefix = "B  "
    for next_prefix in ("KiB", "MiB", "GiB", "TiB", "PiB"):
        if reference < 768 * 1024:
            break
        prefix = next_prefix
        size //= 1024
        reference /= 1024
    return f"{size:6d} {prefix}"


def _format_count(count, reference):
    prefix = " "
    for next_prefix in ("K", "M"):
        if reference < 750 * 1000:
            break
        prefix = next_prefix
        count //= 1000
        reference /= 1000
    return f"{count:7d} {prefix} "


def _memory_summary(device_type, index, stats):
    allocated, reserved, peak = stats["allocated_bytes"], stats["reserved_bytes"], stats["peak_allocated_bytes"]
    title = f"Ember {device_type} memory summary, device ID {index}"
    lines = ["=" * 75, f" {title:^73} ", "-" * 75,
             "  Caching allocator: one free list per size class and stream (docs/streams.md)".ljust(75), "=" * 75,
             "        Metric         | Cur Usage  | Peak Usage |            Count           ", "-" * 75,
             f" {'Allocated memory':<21} | {_format_size(allocated, allocated)} | {_format_size(peak, peak)} | "
             f"{'':26} ",
             f" {'Reserved memory':<21} | {_format_size(reserved, reserved)} | {'':10} | {'':26} ",
             f" {'Cached (free) memory':<21} | {_format_size(reserved - allocated, reserved - allocated)} | "
             f"{'':10} | {'':26} ",
             "-" * 75]
    for key, name in (("num_allocs", "Allocations"), ("num_cache_hits", "Cache hits"),
                      ("num_device_allocs", "Plugin allocations")):
        lines.append(f" {name:<21} | {'':10} | {'':10} | {_format_count(stats[key], stats[key]):>26} ")
    lines.append("=" * 75)
    return "|" + "|\n|".join(lines) + "|\n"


# Note [Per-device seeds]
# PyTorch has a generator per device, and torch.cuda.manual_seed seeds only
# the GPU's. Ember's random kernels on every device draw from the core's one
# stream (seed and counter), so ember.<type>.manual_seed(s) seeds that stream,
# the CPU's included, when the type has a device. Programs call it at their
# start with the seed they give ember.manual_seed, where the two agree.


def plugin_device_types():
    """Device types of the loaded plugins (cpu included)."""
    return {info.device_type for info in _plugins.plugins() if info.loaded and info.device_type}
