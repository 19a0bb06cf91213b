"""What a profile holds, shaped like torch.autograd.profiler_util:
FunctionEvent (one op, range or memory event), FunctionEventAvg (the events
of one key summed) and EventList (a list of either, with table(),
key_averages() and export_chrome_trace()). Times are in microseconds."""

import json
import os
from collections import OrderedDict

from . import _chrome_trace, _table
from ._kernels import Kernel, device_kernels

# The kinds ember/profiler.h gives (EventKind).
_OP, _USER_RANGE, _MEMORY, _INSTANT, _DEVICE = 0, 1, 2, 3, 4


class FunctionEvent:
    """One op call, record_function range or memory event."""

    def __init__(self, id, name, thread, start_us, end_us, device=None, input_shapes=None, input_dtypes=None,
                 stack=None, kind=_OP):
        self.id = id
        self.name = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = end_us
        self.device = device  # "cpu", "toy:1", ... or None (a range, a factory)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.stack = stack if stack is not None else []
        self.kind = kind
        self.cpu_parent = None
        self.cpu_children = []
        self.count = 1
        self.node_id = -1
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.overload_name = ""
        self.flops = 0
        self.kernels = []  # its device work, as Kernel records
        # Memory: this event's own bytes (a memory event), or the bytes of the
        # memory events inside this range, its children's included.
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        # Memory events only: the allocator's totals just after the change.
        self.address = 0
        self.total_allocated = 0
        self.total_reserved = 0
        self.peak_allocated = 0
        # Instant events (compile log events): their arguments.
        self.args = {}

    @property
    def key(self):
        return self.name

    @property
    def is_user_annotation(self):
        return self.kind == _USER_RANGE

    @property
    def is_memory(self):
        return self.kind == _MEMORY

    @property
    def is_instant(self):
        return self.kind == _INSTANT

    @property
    def device_type(self):
        return None if self.device is None else self.device.split(":")[0]

    @property
    def device_index(self):
        if self.device is None:
            return None
        parts = self.device.split(":")
        return int(parts[1]) if len(parts) > 1 else 0

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count

    @property
    def self_device_time_total(self):
        return sum(kernel.duration for kernel in device_kernels(self.kernels))

    @property
    def device_time_total(self):
        return self.self_device_time_total + sum(child.device_time_total for child in self.cpu_children)

    @property
    def device_time(self):
        return self.device_time_total / self.count

    @property
    def timed_device_types(self):
        """The device types (not cpu) whose kernels count in this event's device times."""
        types = {kernel.device_type for kernel in device_kernels(self.kernels)}
        for child in self.cpu_children:
            types |= child.timed_device_types
        return types

    cuda_time_total = device_time_total
    self_cuda_time_total = self_device_time_total
    cuda_time = device_time

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(child.cpu_memory_usage for child in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        return self.device_memory_usage - sum(child.device_memory_usage for child in self.cpu_children)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} device={self.device} thread={self.thread} "
                f"cpu_time_total={self.cpu_time_total:.3f}us self_cpu_time_total={self.self_cpu_time_total:.3f}us "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg:
    """The events of one key (name, and shapes or stack when grouped by them) summed."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = -1
        self.is_async = False
        self.is_remote = False
        self.is_legacy = False
        self.is_user_annotation = False
        self.overload_name = ""
        self.device_type = None
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.input_shapes = None
        self.stack = None
        self.flops = 0
        self.cpu_parent = None
        self.cpu_children = None
        self.timed_device_types = set()

    def add(self, other):
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise TypeError(f"FunctionEventAvg.add: expected a FunctionEvent or FunctionEventAvg, got "
                            f"{type(other).__name__}")
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.device_type = other.device_type
            self.is_user_annotation = other.is_user_annotation
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
        elif other.key != self.key:
            raise ValueError(f"FunctionEventAvg.add: key '{other.key}' added to the average of '{self.key}'")
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_device_time_total += other.self_device_time_total
        self.timed_device_types = self.timed_device_types | other.timed_device_types
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    @property
    def cuda_time_total(self):
        return self.device_time_total

    @property
    def self_cuda_time_total(self):
        return self.self_device_time_total

    @property
    def cuda_time(self):
        return self.device_time

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time:.3f}us count={self.count} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of FunctionEvent or FunctionEventAvg, as torch's EventList. A device's kernels hang on
    their ops (FunctionEvent.kernels)."""

    def __init__(self, *args, profile_memory=False, **kwargs):
        super().__init__(*args, **kwargs)
        self._profile_memory = profile_memory

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    @property
    def self_device_time_total(self):
        return sum(event.self_device_time_total for event in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """The events as the table PyTorch prints (torch.autograd.profiler_util._build_table)."""
        return _table.build_table(self, sort_by=sort_by, row_limit=row_limit,
                                  max_src_column_width=max_src_column_width,
                                  max_name_column_width=max_name_column_width,
                                  max_shapes_column_width=max_shapes_column_width, header=header,
                                  profile_memory=self._profile_memory, top_level_events_only=top_level_events_only,
                                  time_unit=time_unit)

    def __str__(self):
        return self.table()

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One FunctionEventAvg per name (and input shapes, and the top group_by_stack_n frames), in the
        order each key first appears. Ember's ops have one overload each, so group_by_overload_name
        changes nothing."""
        if not isinstance(group_by_stack_n, int) or isinstance(group_by_stack_n, bool) or group_by_stack_n < 0:
            raise ValueError(f"key_averages: group_by_stack_n must be an int >= 0, got {group_by_stack_n!r}")
        stats = OrderedDict()
        for event in self:
            if getattr(event, "is_instant", False):
                continue  # a moment, not time spent: in the trace only
            key = [event.key]
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key.extend(event.stack[:group_by_stack_n])
            stats.setdefault(tuple(key), FunctionEventAvg()).add(event)
        averages = EventList(stats.values(), profile_memory=self._profile_memory)
        if not group_by_input_shapes:
            for average in averages:
                average.input_shapes = None
        if group_by_stack_n == 0:
            for average in averages:
                average.stack = None
        return averages

    def total_average(self):
        total = FunctionEventAvg()
        for event in self:
            total.count += event.count
            total.cpu_time_total += event.cpu_time_total
            total.self_cpu_time_total += event.self_cpu_time_total
            total.device_time_total += event.device_time_total
            total.self_device_time_total += event.self_device_time_total
            total.cpu_memory_usage += event.cpu_memory_usage
            total.self_cpu_memory_usage += event.self_cpu_memory_usage
        total.key = "Total"
        return total

    def export_chrome_trace(self, path):
        """Writes the events as Chrome trace-event JSON (what Perfetto and chrome://tracing open)."""
        events = [event for event in self if isinstance(event, FunctionEvent)]
        if len(events) != len(self):
            raise TypeError("export_chrome_trace: the list holds averages (key_averages()), which have no times; "
                            "export the events themselves")
        _chrome_trace.write_chrome_trace(events, path)


def _package_frame(frame, package_dir):
    # A frame is "file(line): function"; the file may be relative to the working directory.
    return os.path.abspath(frame).startswith(package_dir)


def events_from_raw(raw_events):
    """FunctionEvents from ember._C._profiler_stop()'s tuples, with parents, children and memory use."""
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    events = []
    memory = []
    for (kind, name, start_ns, end_ns, thread, device, raw_id, parent, shapes, dtypes, stack, nbytes, address,
         allocated, reserved, peak, detail) in raw_events:
        if kind == _DEVICE:
            # The core puts device activities last, after every event they
            # could belong to: they are their ops' kernels, not events.
            events[parent].kernels.append(Kernel(name, device, start_ns / 1000.0, end_ns / 1000.0, raw_id))
            continue
        event = FunctionEvent(id=len(events), name=name, thread=thread, start_us=start_ns / 1000.0,
                              end_us=end_ns / 1000.0, device=device, input_shapes=shapes, input_dtypes=dtypes,
                              stack=[frame for frame in stack if not _package_frame(frame, package_dir)], kind=kind)
        if kind == _INSTANT:
            try:
                event.args = json.loads(detail) if detail else {}
            except ValueError:
                event.args = {"text": detail}
        if parent >= 0:
            # A parent always comes before its children. A memory event is not
            # a child (it has no time), but counts in its ranges' memory use.
            event.cpu_parent = events[parent]
            if kind in (_OP, _USER_RANGE):
                events[parent].cpu_children.append(event)
        if kind == _MEMORY:
            event.address, event.total_allocated, event.total_reserved, event.peak_allocated = (
                address, allocated, reserved, peak)
            if device is not None and device.split(":")[0] == "cpu":
                event.cpu_memory_usage = nbytes
            else:
                event.device_memory_usage = nbytes
            memory.append(event)
        events.append(event)
    # A range's memory use is that of the memory events under it, at any depth.
    for event in memory:
        ancestor = event.cpu_parent
        while ancestor is not None:
            ancestor.cpu_memory_usage += event.cpu_memory_usage
            ancestor.device_memory_usage += event.device_memory_usage
            ancestor = ancestor.cpu_parent
    # Threads come one after another from the core; a trace reads better in time order.
    events.sort(key=lambda e: (e.start_us, e.id))
    return events
