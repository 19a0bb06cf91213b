"""``python -m ember.conformance`` runs the conformance kit on a device's plugin."""

import os
import subprocess
import sys


def run_module(*args):
    return subprocess.run([sys.executable, "-m", "ember.conformance", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)


def test_runs_the_kit_on_the_cpu_plugin():
    result = run_module("--device", "cpu", "--filter", "^ops/neg/float32$")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "plugin 'cpu'" in result.stdout
    assert "1 of 1 registered (op, dtype) pairs pass" in result.stdout
    assert "Result: PASS" in result.stdout


def test_unknown_device_type_is_a_usage_error():
    result = run_module("--device", "no-such-device")
    assert result.returncode == 2
    assert "no loaded plugin provides device type 'no-such-device'" in result.stderr
