"""The garbage collector may run while pybind11 makes the first instance of
a Python subclass of Tensor (it registers the subclass then, and that
allocates): Tensor's traverse function must not read the half-made
instance. Run with a collection at nearly every allocation, in a process of
its own, since a failure is a crash."""

import os
import subprocess
import sys

PROGRAM = """
import gc
import ember
gc.set_threshold(1)
kept = [[i] for i in range(100)]
for i in range(30):
    subclass = type(f"Sub{i}", (ember.nn.Parameter,), {})
    tensor = subclass(ember.ones(2))
    assert type(tensor) is subclass and tensor.requires_grad
print("ok")
"""


def test_first_instances_of_tensor_subclasses_under_constant_collection():
    result = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120,
                            env=dict(os.environ))
    assert result.returncode == 0 and result.stdout.strip() == "ok", (result.returncode, result.stderr[-2000:])
