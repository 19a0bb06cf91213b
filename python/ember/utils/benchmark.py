"""torch.utils.benchmark's Timer and Measurement, for the timing scripts
written against PyTorch: Timer(stmt, setup, globals=...).timeit(number),
blocked_autorange(min_run_time), and a Measurement with mean, median, iqr
and times (seconds per run). A Timer runs its statement with the thread
count it is given (num_threads, 1 by default, as PyTorch's does) and puts
the previous count back afterwards; Ember's kernels finish before they
return on the CPU, so nothing else is synchronized."""

import statistics
import timeit

from .. import _C

__all__ = ["Timer", "Measurement"]


class Measurement:
    """Times per run of one statement: times[i] is the seconds one execution took, averaged over a block."""

    def __init__(self, number_per_run, raw_times, task_spec, label=None, sub_label=None, description=None):
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.label, self.sub_label, self.description = label, sub_label, description

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self):
        return statistics.fmean(self.times)

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def iqr(self):
        if len(self.times) < 2:
            return 0.0
        quartiles = statistics.quantiles(self.times, n=4, method="inclusive")
        return quartiles[2] - quartiles[0]

    @property
    def title(self):
        parts = [part for part in (self.label, self.sub_label) if part]
        return ": ".join(parts) if parts else self.task_spec

    @property
    def significant_figures(self):
        return 4

    def __repr__(self):
        unit, scale = next(((u, s) for u, s in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)) if self.median >= s),
                           ("ns", 1e-9))
        runs = len(self.raw_times) * self.number_per_run
        return (f"<ember.utils.benchmark.Measurement object at {hex(id(self))}>\n{self.title}\n"
                f"{self.description + chr(10) if self.description else ''}"
                f"  Median: {self.median / scale:.2f} {unit}\n  IQR:    {self.iqr / scale:.2f} {unit}\n"
                f"  {len(self.raw_times)} measurement(s), {runs} runs")


class Timer:
    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timeit.default_timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1, language="python"):
        if str(language).lower() not in ("python", "py", "language.python"):
            raise ValueError(f"Timer: language {language!r} is not supported; Ember times Python statements")
        self._stmt, self._label, self._sub_label, self._description = stmt, label, sub_label, description
        self._num_threads = num_threads
        # global_setup runs before setup, each time the statement is timed (timeit runs the setup code).
        setup = f"{global_setup}\n{setup}" if global_setup else setup
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=dict(globals or {}))

    def _run(self, number):
        previous = _C.get_num_threads()
        _C.set_num_threads(self._num_threads)
        try:
            return self._timer.timeit(number)
        finally:
            _C.set_num_threads(previous)

    def _measurement(self, number, raw_times):
        return Measurement(number, raw_times, self._stmt, self._label, self._sub_label, self._description)

    def timeit(self, number=1000000):
        """One block of `number` executions (after one warm-up execution)."""
        self._run(1)
        return self._measurement(number, [self._run(number)])

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("Timer.repeat: use timeit or blocked_autorange, as PyTorch advises")

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a number of executions that takes at least 10 ms, until min_run_time has passed."""
        number = 1
        while self._run(number) < 0.01:
            number *= 10
        raw_times, total = [], 0.0
        while total < min_run_time or not raw_times:
            elapsed = self._run(number)
            raw_times.append(elapsed)
            total += elapsed
            if callback is not None:
                callback(number, elapsed)
        return self._measurement(number, raw_times)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """blocked_autorange until the IQR is below threshold times the median or max_run_time passes."""
        measurement = self.blocked_autorange(callback, min_run_time)
        spent = sum(measurement.raw_times)
        while measurement.iqr > threshold * measurement.median and spent < max_run_time:
            more = self.blocked_autorange(callback, min_run_time)
            measurement.raw_times.extend(more.raw_times)
            spent += sum(more.raw_times)
        return measurement
