"""Run by check_wheel.sh inside a fresh virtual environment holding only the
installed wheel: the CPU plugin must come from the package itself."""

import importlib.metadata
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

# The installed wheel compiles: its CPU code generator loads from the package.
codegen = plugins["cpu_codegen"]
assert codegen.loaded, codegen.error
assert pathlib.Path(codegen.path).resolve().is_relative_to(package.resolve()), codegen.path
compiled = ember.compile(lambda x: ember.sin(ember.cos(x)) + 1)
with ember.no_grad():
    assert ember.allclose(compiled(ember.arange(8.0)), ember.sin(ember.cos(ember.arange(8.0))) + 1)
plan = compiled._ember_compiled.variants[0].graphs[0]
assert plan.num_kernels == 1 and not plan.eager_reasons, plan.eager_reasons

a = ember.arange(6.0).reshape(2, 3).requires_grad_()
loss = (a @ a.T).sum()
loss.backward()
assert a.grad.tolist() == [[6.0, 10.0, 14.0], [6.0, 10.0, 14.0]], a.grad

headers = package / "include" / "ember"
for header in ("ember_plugin.h", "tensor.h", "ops.h"):
    assert (headers / header).is_file(), header
assert (package / "lib" / "cmake" / "EmberSDK").is_dir()

# One version: the wheel's metadata, the package and the runtime it reports.
assert importlib.metadata.version("ember") == ember.__version__ == ember._C.__version__, ember.__version__

info = subprocess.run([sys.executable, "-m", "ember.info"], capture_output=True, text=True, check=True,
                      env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
assert f"ember: {ember.__version__}" in info.stdout and f"cpu {ember.__version__}" in info.stdout, info.stdout
print("wheel ok:", package)
