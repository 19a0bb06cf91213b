"""ember.utils.benchmark: Timer and Measurement as timing scripts written
against torch.utils.benchmark use them (the numbers are the machine's, so
only their shape and consistency are checked)."""

import pytest

import ember
from ember.utils import benchmark


def test_timer_measures_a_statement_with_its_globals():
    x = ember.ones(64, 64)
    timer = benchmark.Timer(stmt="x @ x", globals={"x": x}, label="mm", sub_label="64", description="float32")
    measurement = timer.timeit(20)
    assert measurement.number_per_run == 20 and len(measurement.times) == 1
    assert 0 < measurement.mean == measurement.median and measurement.iqr == 0.0
    assert measurement.title == "mm: 64" and "Median" in repr(measurement)
    ranged = timer.blocked_autorange(min_run_time=0.05)
    assert sum(ranged.raw_times) >= 0.05 and all(t > 0 for t in ranged.times)
    assert ranged.iqr >= 0 and min(ranged.times) <= ranged.median <= max(ranged.times)


def test_setups_run_and_thread_counts_come_back():
    before = ember.get_num_threads()
    timer = benchmark.Timer(stmt="y.add_(1)", setup="y = ember.zeros(4)", global_setup="import ember",
                            num_threads=1)
    assert timer.timeit(5).mean > 0
    assert ember.get_num_threads() == before
    with pytest.raises(ValueError, match="language 'cpp' is not supported"):
        benchmark.Timer(language="cpp")
