"""ember.profiler.profile and record_function, as torch.profiler's."""

import enum
import functools
import os
import socket
import time
import warnings

from .. import _C
from ._events import EventList, events_from_raw
from ._schedule import ProfilerAction, default_schedule


class ProfilerActivity(enum.Enum):
    """What a profile records. CPU: every op's host time, on whatever device it runs. A device activity
    (CUDA, XPU, or PrivateUse1 for any other plugin's device) asks for device time, which needs a plugin
    with the profiling extension; without one, its ops still have their host times."""

    CPU = "cpu"
    CUDA = "cuda"
    XPU = "xpu"
    PrivateUse1 = "privateuse1"


def supported_activities():
    """CPU, and the activity of each device type a loaded plugin provides."""
    from .._device_module import plugin_device_types

    activities = {ProfilerActivity.CPU}
    for device_type in plugin_device_types():
        if device_type == "cuda":
            activities.add(ProfilerActivity.CUDA)
        elif device_type == "xpu":
            activities.add(ProfilerActivity.XPU)
        elif device_type not in ("cpu", "meta"):
            activities.add(ProfilerActivity.PrivateUse1)
    return activities


def _timed(activity):
    """Whether a loaded plugin of the activity's devices times its kernels."""
    from .._device_module import plugin_device_types

    timed = set(_C._profiler_timed_device_types())
    if activity is ProfilerActivity.CUDA:
        return "cuda" in timed
    if activity is ProfilerActivity.XPU:
        return "xpu" in timed
    return any(t in timed for t in plugin_device_types() if t not in ("cpu", "meta", "cuda", "xpu"))


def _check_activities(activities):
    if activities is None:
        return {ProfilerActivity.CPU}
    try:
        activities = list(activities)
    except TypeError:
        raise TypeError(f"profile: activities must be a list of ProfilerActivity, got "
                        f"{type(activities).__name__}") from None
    for activity in activities:
        if not isinstance(activity, ProfilerActivity):
            raise TypeError(f"profile: activities must hold ProfilerActivity values, got {activity!r}")
    if not activities:
        raise ValueError("profile: activities is empty; pass at least ProfilerActivity.CPU")
    untimed = [a for a in activities if a is not ProfilerActivity.CPU and not _timed(a)]
    if untimed:
        warnings.warn(f"profile: device time for {', '.join(a.name for a in untimed)} needs a plugin with the "
                      f"profiling extension, which no loaded plugin of that device has; its ops get host times "
                      f"only", stacklevel=3)
    return set(activities)


class _Session:
    """One recording: ember._C's session, started and stopped."""

    def __init__(self, record_shapes, profile_memory, with_stack):
        self.options = (bool(record_shapes), bool(profile_memory), bool(with_stack))

    def start(self):
        _C._profiler_start(*self.options)

    def stop(self):
        return EventList(events_from_raw(_C._profiler_stop()), profile_memory=self.options[1])


class profile:
    """Profiles the ops run inside ``with profile(...) as prof:`` (or between start() and stop()).

    Args as torch.profiler.profile: activities, schedule (from ember.profiler.schedule; without one every
    step records), on_trace_ready (called with the profiler at the end of each active cycle),
    record_shapes, profile_memory, with_stack. with_flops and with_modules are not supported."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None):
        if with_flops:
            raise NotImplementedError("profile: with_flops is not supported by ember.profiler")
        if with_modules:
            raise NotImplementedError("profile: with_modules is not supported by ember.profiler")
        if experimental_config is not None or execution_trace_observer is not None:
            raise NotImplementedError("profile: experimental_config and execution_trace_observer are not "
                                      "supported by ember.profiler")
        if schedule is not None and not callable(schedule):
            raise TypeError(f"profile: schedule must be callable (ember.profiler.schedule(...)), got "
                            f"{type(schedule).__name__}")
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise TypeError(f"profile: on_trace_ready must be callable, got {type(on_trace_ready).__name__}")
        self.activities = _check_activities(activities)
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.schedule = schedule if schedule is not None else default_schedule
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self.step_rec_fn = None
        self._session = None
        self._events = None
        self._actions = {
            (ProfilerAction.NONE, ProfilerAction.WARMUP): [self._prepare_trace],
            (ProfilerAction.NONE, ProfilerAction.RECORD): [self._prepare_trace, self._start_trace],
            (ProfilerAction.NONE, ProfilerAction.RECORD_AND_SAVE): [self._prepare_trace, self._start_trace],
            (ProfilerAction.WARMUP, ProfilerAction.NONE): [
                functools.partial(warnings.warn, "Incorrect schedule: WARMUP followed by NONE"),
                self._start_trace, self._stop_trace],
            (ProfilerAction.WARMUP, ProfilerAction.RECORD): [self._start_trace],
            (ProfilerAction.WARMUP, ProfilerAction.RECORD_AND_SAVE): [self._start_trace],
            (ProfilerAction.RECORD, ProfilerAction.NONE): [
                functools.partial(warnings.warn, "Incorrect schedule: RECORD followed by NONE"), self._stop_trace],
            (ProfilerAction.RECORD, ProfilerAction.WARMUP): [
                functools.partial(warnings.warn, "Incorrect schedule: RECORD followed by WARMUP"),
                self._stop_trace],
            (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE): [self._stop_trace, self._trace_ready],
            (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.WARMUP): [
                self._stop_trace, self._trace_ready, self._prepare_trace],
            (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.RECORD): [
                self._stop_trace, self._trace_ready, self._prepare_trace, self._start_trace],
            (ProfilerAction.RECORD_AND_SAVE, ProfilerAction.RECORD_AND_SAVE): [
                self._stop_trace, self._trace_ready, self._prepare_trace, self._start_trace],
            (ProfilerAction.WARMUP, None): [self._start_trace, self._stop_trace],
            (ProfilerAction.RECORD, None): [self._stop_trace, self._trace_ready],
            (ProfilerAction.RECORD_AND_SAVE, None): [self._stop_trace, self._trace_ready],
        }

    # -- the session's life
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.stop()

    def start(self):
        self._check_action(self.current_action, 0)
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step()

    def stop(self):
        self._close_step()
        if self._session is not None or self.current_action is ProfilerAction.WARMUP:
            self._transit(self.current_action, None)
        # A second stop() (or one after the schedule ended) has nothing to stop.
        self.current_action = ProfilerAction.NONE

    def step(self):
        """The next step begins: the schedule says whether it records."""
        self._close_step()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self._check_action(self.schedule(self.step_num), self.step_num)
        self._transit(previous, self.current_action)
        self._open_step()

    @staticmethod
    def _check_action(action, step):
        if not isinstance(action, ProfilerAction):
            raise TypeError(f"profile: the schedule returned {action!r} for step {step}, not a ProfilerAction")
        return action

    def _open_step(self):
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _close_step(self):
        if self.step_rec_fn is not None:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None

    def _transit(self, previous, current):
        for action in self._actions.get((previous, current), []):
            action()

    def _prepare_trace(self):
        # Nothing to warm up on the host: recording starts in one flag store.
        self._session = _Session(self.record_shapes, self.profile_memory, self.with_stack)

    def _start_trace(self):
        if self._session is None:
            self._prepare_trace()
        self._session.start()

    def _stop_trace(self):
        self._events = self._session.stop()
        self._session = None

    def _trace_ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # -- what it recorded
    def _recorded(self, what):
        if self._events is None:
            raise RuntimeError(f"profile.{what}: nothing has been recorded yet (the profile is still running, or "
                               f"its schedule has not reached the end of an active step)")
        return self._events

    def events(self):
        """Every FunctionEvent of the last recorded cycle."""
        return self._recorded("events()")

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The events summed per name (and input shapes, and top stack frames), as an EventList of
        FunctionEventAvg whose table() prints as PyTorch's."""
        return self._recorded("key_averages()").key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        self._recorded("export_chrome_trace()").export_chrome_trace(path)

    def export_memory_timeline(self, path, device=None):
        raise NotImplementedError("profile.export_memory_timeline is not supported; the chrome trace holds "
                                  "the memory events and a counter track per device")


class record_function:
    """A named range in the profile: ``with record_function("name"):`` or ``@record_function("name")``.
    The ops it runs are its children. Without a running profile it costs a flag check."""

    def __init__(self, name, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function: name must be a str, got {type(name).__name__}")
        self.name = name if args is None else f"{name}({args})"
        self.args = args
        self._range = None

    def __enter__(self):
        if _C._profiler_enabled():
            self._range = _C._RecordFunction(self.name)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._range is not None:
            self._range.end()
            self._range = None
        return False

    def __call__(self, function):
        # A fresh range per call: one decorated function may run on many
        # threads, or inside itself.
        name = self.name

        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            with record_function(name):
                return function(*args, **kwargs)

        return wrapped


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes each cycle's trace to ``dir_name`` as
    ``<worker_name>.<time_ns>.pt.trace.json[.gz]`` (worker_name: '<hostname>_<pid>'), as PyTorch's."""
    if not isinstance(dir_name, (str, os.PathLike)):
        raise TypeError(f"tensorboard_trace_handler: dir_name must be a path, got {type(dir_name).__name__}")

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except OSError as error:
                raise RuntimeError(f"tensorboard_trace_handler: cannot create the directory '{dir_name}': "
                                   f"{error.strerror}") from error
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            file_name += ".gz"
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn
