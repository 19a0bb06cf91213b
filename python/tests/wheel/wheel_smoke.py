"""Run by check_wheel.sh inside a fresh virtual environment holding only the
installed wheel: the CPU plugin must come from the package itself."""

import os
import pathlib
import subprocess
import sys

import ember

package = pathlib.Path(ember.__file__).parent
assert "site-packages" in str(package), package

plugins = {p.name: p for p in ember.plugins()}
cpu = plugins["cpu"]
assert cpu.loaded, cpu.error
assert pathlib.Path(cpu.path).resolve().is_relative_to(package.resolve()), cpu.path

a = ember.arange(6.0).reshape(2, 3).requires_grad_()
loss = (a @ a.T).sum()
loss.backward()
assert a.grad.tolist() == [[6.0, 10.0, 14.0], [6.0, 10.0, 14.0]], a.grad

headers = package / "include" / "ember"
for header in ("ember_plugin.h", "tensor.h", "ops.h"):
    assert (headers / header).is_file(), header
assert (package / "lib" / "cmake" / "EmberSDK").is_dir()

info = subprocess.run([sys.executable, "-m", "ember.info"], capture_output=True, text=True, check=True,
                      env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
assert "cpu 1.0.0" in info.stdout, info.stdout
print("wheel ok:", package)
