"""torch.profiler.schedule and ProfilerAction: which steps a profile records."""

import enum
import warnings


class ProfilerAction(enum.Enum):
    """What the profiler does during a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def _count(name, value, minimum):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"schedule: {name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"schedule: {name} must be >= {minimum}, got {value}")
    return value


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A schedule for ``profile(schedule=...)``: skip the first ``skip_first`` steps, then cycles of ``wait``
    steps doing nothing, ``warmup`` steps warming up and ``active`` steps recording; the last active step
    of a cycle calls ``on_trace_ready``. ``repeat`` cycles, or without end when 0; ``skip_first_wait``
    skips the first cycle's wait. As PyTorch's, except that bad numbers raise ValueError naming the
    argument (PyTorch raises AssertionError)."""
    _count("wait", wait, 0)
    _count("warmup", warmup, 0)
    _count("active", active, 1)
    _count("repeat", repeat, 0)
    _count("skip_first", skip_first, 0)
    _count("skip_first_wait", skip_first_wait, 0)

    def schedule_fn(step):
        if not isinstance(step, int) or step < 0:
            raise ValueError(f"schedule: step must be an int >= 0, got {step!r}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def default_schedule(_step):
    """Without a schedule every step records (PyTorch's default)."""
    return ProfilerAction.RECORD
