"""The kernel watchdog from Python (Note [Kernel watchdog]): a kernel that never returns raises a
RuntimeError naming it, and the process goes on and exits. In a child process: the faulty test plugin's
hung kernel stays hung, and its plugin unusable, for the rest of the process."""

import pathlib
import subprocess
import sys

import pytest

import ember

FAULTY_PLUGIN = pathlib.Path(ember._C.__file__).resolve().parents[2] / "test_plugins" / "libfaulty_kernels.so"


def test_a_hung_kernel_raises_and_the_process_goes_on():
    assert FAULTY_PLUGIN.exists(), f"the faulty test plugin is not built ({FAULTY_PLUGIN})"
    program = f"""
import time
import ember
ember.load_plugin({str(FAULTY_PLUGIN)!r})
x = ember.ones(128).to("faulty")
ember.set_kernel_timeout(0.25)
assert ember.get_kernel_timeout() == 0.25
begin = time.monotonic()
try:
    ember.sin(x)
except RuntimeError as error:
    print("first:", error)
print("waited:", round(time.monotonic() - begin, 1))
try:
    ember.exp(x)
except RuntimeError as error:
    print("then:", error)
print("cpu:", (ember.ones(3) * 2).tolist())
ember.set_kernel_timeout(None)
assert ember.get_kernel_timeout() is None
"""
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines())
    assert "sin (float32) on faulty:0, plugin 'faulty'" in lines["first"]
    assert "did not return within 250 ms" in lines["first"]
    assert float(lines["waited"]) < 5
    assert "exp (float32) on faulty:0" in lines["then"] and "the plugin is unusable" in lines["then"]
    assert lines["cpu"] == "[2.0, 2.0, 2.0]"
    assert "kernel watchdog" in result.stderr  # the log line names it too


@pytest.mark.parametrize("value, error", [(-1, ValueError), (float("nan"), ValueError), ("1", TypeError),
                                          (True, TypeError)])
def test_bad_timeouts_are_refused(value, error):
    with pytest.raises(error, match="set_kernel_timeout"):
        ember.set_kernel_timeout(value)
    assert ember.get_kernel_timeout() is None


def test_ops_run_the_same_with_the_watchdog_on():
    a = ember.arange(12.0).reshape(3, 4)
    expected = (a @ a.T).softmax(-1).tolist()
    ember.set_kernel_timeout(10)
    try:
        assert (a @ a.T).softmax(-1).tolist() == expected
    finally:
        ember.set_kernel_timeout(None)
