"""Chrome trace-event JSON (the format Perfetto and chrome://tracing open,
https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
complete events (ph "X") for ops and ranges, instant events (ph "i") and a
counter track (ph "C") per device for memory, named as PyTorch's traces
name them, instant events for the compiler's log events, and each device's
kernels on a track of their own, joined to their ops by flow arrows."""

import gzip
import json
import os
import tempfile

from ._kernels import device_kernels

_CATEGORY = {0: "cpu_op", 1: "user_annotation"}


def _complete_event(event, pid):
    args = {"External id": event.id}
    if event.device is not None:
        args["Device"] = event.device
    if event.input_shapes:
        args["Input Dims"] = event.input_shapes
        args["Input type"] = event.input_dtypes
    if event.stack:
        args["Call stack"] = ";".join(event.stack)
    return {"ph": "X", "cat": _CATEGORY.get(event.kind, "cpu_op"), "name": event.name, "pid": pid,
            "tid": event.thread, "ts": event.start_us, "dur": event.cpu_time_total, "args": args}


def _memory_events(event, pid):
    device_type = event.device_type or "cpu"
    device_index = event.device_index or 0
    nbytes = event.cpu_memory_usage or event.device_memory_usage
    instant = {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid,
               "tid": event.thread, "ts": event.start_us,
               "args": {"Device Type": device_type, "Device Id": device_index, "Addr": event.address,
                        "Bytes": nbytes, "Total Allocated": event.total_allocated,
                        "Total Reserved": event.total_reserved, "Peak Allocated": event.peak_allocated}}
    counter = {"ph": "C", "cat": "memory", "name": f"Memory ({event.device})", "pid": pid, "tid": 0,
               "ts": event.start_us,
               "args": {"Allocated": event.total_allocated, "Reserved": event.total_reserved}}
    return [instant, counter]


def _kernel_events(event, kernel, pid, device_pid):
    # The flow's two ends share the kernel's correlation id, as PyTorch's
    # "ac2g" (async CPU to GPU) arrows do.
    flow = {"cat": "ac2g", "name": "ac2g", "id": kernel.correlation_id}
    return [{"ph": "X", "cat": "kernel", "name": kernel.name, "pid": device_pid, "tid": 0, "ts": kernel.start_us,
             "dur": kernel.duration,
             "args": {"External id": event.id, "correlation": kernel.correlation_id, "device": kernel.device}},
            dict(flow, ph="s", pid=pid, tid=event.thread, ts=event.start_us),
            dict(flow, ph="f", bp="e", pid=device_pid, tid=0, ts=kernel.start_us)]


def trace_events(events):
    pid = os.getpid()
    trace = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0, "args": {"name": "ember"}}]
    # One process per device for its kernels, numbered after the host's.
    devices = sorted({kernel.device for event in events for kernel in device_kernels(event.kernels)})
    device_pids = {device: pid + 1 + n for n, device in enumerate(devices)}
    for device, device_pid in device_pids.items():
        trace.append({"ph": "M", "name": "process_name", "pid": device_pid, "tid": 0,
                      "args": {"name": f"{device} kernels"}})
    for thread in sorted({event.thread for event in events}):
        trace.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": thread,
                      "args": {"name": f"thread {thread}"}})
    for event in events:
        if event.is_memory:
            trace.extend(_memory_events(event, pid))
        elif event.is_instant:
            trace.append({"ph": "i", "s": "t", "cat": "compile", "name": event.name, "pid": pid,
                          "tid": event.thread, "ts": event.start_us, "args": event.args})
        else:
            trace.append(_complete_event(event, pid))
        for kernel in device_kernels(event.kernels):
            trace.extend(_kernel_events(event, kernel, pid, device_pids[kernel.device]))
    return {"schemaVersion": 1, "displayTimeUnit": "ms", "traceName": "ember", "traceEvents": trace}


def write_chrome_trace(events, path):
    """Writes atomically: a temporary file beside `path`, renamed over it once complete, so a reader (or a
    crash) never sees half a trace. A path ending in .gz is gzip-compressed."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    data = json.dumps(trace_events(events)).encode()
    if path.endswith(".gz"):
        data = gzip.compress(data)
    try:
        fd, temporary = tempfile.mkstemp(prefix=".ember-trace-", suffix=".tmp", dir=directory)
    except OSError as error:
        raise OSError(error.errno, f"export_chrome_trace: cannot write the trace '{path}': {error.strerror}") from error
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise OSError(error.errno, f"export_chrome_trace: cannot write the trace '{path}': {error.strerror}") from error
