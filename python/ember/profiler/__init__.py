"""ember.profiler: where time and memory go, shaped like torch.profiler (docs/profiler.md).

    with ember.profiler.profile(record_shapes=True, profile_memory=True) as prof:
        with ember.profiler.record_function("step"):
            model(x).sum().backward()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")   # open in https://ui.perfetto.dev
"""

from ._events import EventList, FunctionEvent, FunctionEventAvg
from ._schedule import ProfilerAction, schedule
from .profiler import ProfilerActivity, profile, record_function, supported_activities, tensorboard_trace_handler

__all__ = ["profile", "record_function", "schedule", "ProfilerAction", "ProfilerActivity", "supported_activities",
           "tensorboard_trace_handler", "EventList", "FunctionEvent", "FunctionEventAvg"]
