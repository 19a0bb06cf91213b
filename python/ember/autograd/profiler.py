"""torch.autograd.profiler's names over ember.profiler: the older
``profile(enabled=True, record_shapes=..., profile_memory=..., with_stack=...)``
context manager, whose results are on the object itself, and record_function."""

from ..profiler import EventList, FunctionEvent, FunctionEventAvg, record_function
from ..profiler.profiler import _Session

__all__ = ["profile", "record_function", "EventList", "FunctionEvent", "FunctionEventAvg"]


class profile:
    """``with ember.autograd.profiler.profile() as prof:`` records the block; then ``prof.key_averages()``,
    ``prof.table()``, ``prof.function_events``, ``prof.export_chrome_trace(path)``."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True):
        if with_flops or with_modules:
            raise NotImplementedError("profile: with_flops and with_modules are not supported by ember's profiler")
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self._session = None
        self.function_events = None

    def __enter__(self):
        if self.enabled:
            self._session = _Session(self.record_shapes, self.profile_memory, self.with_stack)
            self._session.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._session is not None:
            self.function_events = self._session.stop()
            self._session = None
        return False

    def _events(self, what):
        if self.function_events is None:
            raise RuntimeError(f"profile.{what}: the profiler has not finished (or was not enabled)")
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._events("key_averages()").key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        return self._events("table()").table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def export_chrome_trace(self, path):
        self._events("export_chrome_trace()").export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        return self._events("self_cpu_time_total").self_cpu_time_total

    def __str__(self):
        return self.table() if self.function_events is not None else "<unfinished ember.autograd.profiler.profile>"
