"""Run by installed_alone.sh: `torch_beside_ember.py <site-packages holding
torch>`. PyTorch's wheel carries its own libgomp.so.1; Ember's carries the
OpenMP runtime it was built with under a hashed name (auditwheel's repair), so
both load into one process side by side and each computes with its own."""

import sys

sys.path.append(sys.argv[1])  # after the environment's own packages: ember comes from the wheel

import torch  # noqa: E402  first, so that its libgomp.so.1 is the one a plain name would find

import ember  # noqa: E402

torch.manual_seed(0)
a = torch.randn(96, 128, dtype=torch.float64)
b = torch.randn(128, 80, dtype=torch.float64)
expected = torch.relu(a @ b).sum(dim=0)
got = ember.relu(ember.from_dlpack(a) @ ember.from_dlpack(b)).sum(dim=0)
assert torch.allclose(torch.from_dlpack(got), expected), (got, expected)

ember_cpu = {p.name: p for p in ember.plugins()}["cpu"]
assert ember_cpu.loaded, ember_cpu.error
with open("/proc/self/maps") as maps:
    loaded = {line.split()[-1] for line in maps if "libgomp" in line}
assert any("/torch/lib/" in path for path in loaded), loaded
assert any("/ember.libs/libgomp-" in path for path in loaded), loaded
print("torch and ember in one process; OpenMP runtimes:", ", ".join(sorted(loaded)))
