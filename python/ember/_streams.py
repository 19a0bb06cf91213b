"""Streams and events (``torch.Stream`` and ``torch.Event``) over the core's
ember/stream.h: every kernel and copy runs on the current stream of its
device, set per thread and per device (see docs/streams.md)."""

import builtins

from . import _C
from ._C import Tensor


def _as_device(device):
    return device if isinstance(device, _C.device) else _C.device(device)


class Stream:
    """An in-order queue of work on one device. ``Stream(device)`` makes a new
    stream (on the cpu when no device is given, as torch.Stream does); on a
    device whose plugin has no streams it is the default one."""

    def __init__(self, device=None, priority=0, **kwargs):
        native = kwargs.pop("_native", None)
        if kwargs:
            raise TypeError(f"Stream() got unexpected keyword arguments {sorted(kwargs)}")
        if native is None:
            native = _C._Stream.create(_as_device("cpu" if device is None else device))
        self._native = native

    @property
    def device(self):
        return self._native.device

    @property
    def device_type(self):
        return self.device.type

    @property
    def device_index(self):
        return self.device.index

    @property
    def stream_id(self):
        """0 for the default stream."""
        return self._native.stream_id

    @property
    def native_handle(self):
        """The plugin's stream handle as an int (0 for the default stream)."""
        return self._native.native_handle

    def query(self):
        return self._native.query()

    def synchronize(self):
        self._native.synchronize()

    def wait_stream(self, stream):
        _check_stream("wait_stream", stream)
        self._native.wait_stream(stream._native)

    def wait_event(self, event):
        event.wait(self)

    def record_event(self, event=None):
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and self._native == other._native

    def __hash__(self):
        return hash(self._native)

    def __repr__(self):
        return f"<ember.Stream device={self.device} stream_id={self.stream_id}>"


def _check_stream(what, stream):
    if not isinstance(stream, Stream):
        raise TypeError(f"{what}: expected an ember.Stream, but got {type(stream).__name__}")


def current_stream(device):
    """The current stream of ``device`` on this thread."""
    return Stream(_native=_C._current_stream(_as_device(device)))


def default_stream(device):
    return Stream(_native=_C._Stream.default_stream(_as_device(device)))


def set_stream(stream):
    """Makes ``stream`` the current stream of its device on this thread."""
    _check_stream("set_stream", stream)
    _C._set_current_stream(stream._native)


class Event:
    """A marker in a stream's work. ``enable_timing`` allows elapsed_time();
    record() and wait() without a stream use the current stream of the
    event's device (``device``, else the cpu)."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, **kwargs):
        device = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"Event() got unexpected keyword arguments {sorted(kwargs)}")
        if interprocess:
            raise NotImplementedError("Event: interprocess events are not supported by ember")
        self._native = _C._Event(builtins.bool(enable_timing))
        self._default_device = None if device is None else _as_device(device)

    @property
    def device(self):
        """The device of the first record, or None before it."""
        return self._native.device

    def _stream_or_current(self, stream, what):
        if stream is not None:
            _check_stream(what, stream)
            return stream
        return current_stream(self.device or self._default_device or "cpu")

    def record(self, stream=None):
        self._native.record(self._stream_or_current(stream, "record")._native)

    def wait(self, stream=None):
        self._native.wait(self._stream_or_current(stream, "wait")._native)

    def query(self):
        return self._native.query()

    def synchronize(self):
        self._native.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds from this event to ``end_event``."""
        if not isinstance(end_event, Event):
            raise TypeError(f"elapsed_time: expected an ember.Event, but got {type(end_event).__name__}")
        return self._native.elapsed_time(end_event._native)

    def __repr__(self):
        return f"<ember.Event device={self.device} enable_timing={self._native.enable_timing}>"


class StreamContext:
    """Makes a stream current for its device on this thread inside ``with``,
    and restores the stream it replaced (``torch.cuda.StreamContext``).
    ``None`` leaves the current stream as it is."""

    def __init__(self, stream):
        if stream is not None:
            _check_stream("stream", stream)
        self.stream = stream
        self._previous = []

    def __enter__(self):
        if self.stream is not None:
            self._previous.append(current_stream(self.stream.device))
            set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            set_stream(self._previous.pop())
        return False


def _record_stream(self, stream):
    """The caching allocator keeps this tensor's memory out of reuse until the
    work queued on ``stream`` so far is done (``torch.Tensor.record_stream``)."""
    _check_stream("record_stream", stream)
    _C._record_stream(self, stream._native)


Tensor.record_stream = _record_stream
