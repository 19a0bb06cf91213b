"""ember.multiprocessing.spawn and start_processes: every child runs, and a
child's failure reaches the parent with its traceback, the others stopped."""

import os
import time

import pytest

import ember
import ember.multiprocessing as mp


def _write_sum(index, folder, size):
    total = ember.arange(float(size)).sum().item() + index
    with open(os.path.join(folder, f"rank{index}"), "w") as out:
        out.write(str(total))


def _fail_on_one(index):
    if index == 1:
        raise ValueError("rank 1 failed")
    time.sleep(60)  # stopped by the parent once rank 1 fails


def _exit_with_three(index):
    os._exit(3)


def _sleep(index, seconds):
    time.sleep(seconds)


def test_spawn_runs_every_process(tmp_path):
    assert mp.spawn(_write_sum, args=(str(tmp_path), 10), nprocs=2) is None
    assert sorted(os.listdir(tmp_path)) == ["rank0", "rank1"]
    assert [float((tmp_path / f"rank{i}").read_text()) for i in range(2)] == [45.0, 46.0]


def test_a_childs_exception_is_raised_with_its_traceback_and_the_others_stop():
    start = time.monotonic()
    with pytest.raises(mp.ProcessRaisedException, match="ValueError: rank 1 failed") as raised:
        mp.start_processes(_fail_on_one, nprocs=3, start_method="fork")
    assert raised.value.error_index == 1
    assert "_fail_on_one" in str(raised.value)
    assert time.monotonic() - start < 50  # the sleeping ranks were terminated


def test_an_exit_code_is_reported():
    with pytest.raises(mp.ProcessExitedException, match="exit code 3") as raised:
        mp.start_processes(_exit_with_three, nprocs=1, start_method="fork")
    assert raised.value.exit_code == 3


def test_join_false_returns_a_context_that_times_out_then_finishes():
    context = mp.start_processes(_sleep, args=(0.5,), nprocs=2, join=False, start_method="fork")
    assert len(context.pids()) == 2
    assert context.join(timeout=0.01) is False
    while not context.join(timeout=5):
        pass


def test_spawn_takes_only_the_spawn_start_method():
    with pytest.raises(ValueError, match="start_processes"):
        mp.spawn(_sleep, args=(0,), start_method="fork")
    assert mp.get_context is not None and hasattr(ember.multiprocessing, "Queue")
