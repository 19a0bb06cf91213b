#!/usr/bin/env python3
"""Ember's GPU figures beside PyTorch's, in one process, on one GPU.

    EMBER_PLUGIN_PATH=<folder with libember_plugin_cuda.so> \
    PYTHONPATH=python:<build>/python python3 bench/gpu/gpu_bench.py [--device cuda]

Both libraries run the same workloads on the same GPU, alternating for
--rounds rounds; each figure is the median over rounds of the median of
--repeats timed runs (each run synchronises). The device's own limit is the
device-to-device copy bandwidth, measured through PyTorch (bytes read plus
bytes written per second) in the same run. Prints a markdown table:

- elementwise ``a + b`` and ``a * b`` on 64M float32 (GB/s moved, and its
  share of the copy bandwidth: target >= 85%);
- reductions on 64M float32: ``sum`` of everything, ``amax`` of every row of
  [8192, 8192] (GB/s read, same target);
- ``mm`` 8192^3 in float32 and bfloat16 (TFLOP/s; bfloat16 target >= 95% of
  PyTorch's);
- an MLP 784-512-512-10 training step, batch 128, SGD (ms; target <=
  PyTorch's time);
- ``ember.compile`` of the pointwise chains ``sin(cos(x))`` and ``x * y + z``
  on 64M float32 (GB/s moved, and its share of the copy bandwidth: target
  >= 85%), and of a row softmax and a row layer_norm of [8192, 8192], beside
  PyTorch eager, with whether Ember's plans ran generated kernels or, with
  the reason, eagerly;
- compiled against eager values for the same four functions on smaller
  inputs (largest difference, and whether they agree to 1e-5).
"""

import argparse
import statistics
import time

import ember
import torch

ELEMENTS = 64 * 1024 * 1024
GEMM_SIZE = 8192


def timed(step, synchronize, repeats):
    step()
    synchronize()
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        step()
        synchronize()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def workloads(lib, device):
    """name -> (step, amount of work per step) for one library."""
    x = lib.rand(ELEMENTS, device=device)
    y = lib.rand(ELEMENTS, device=device)
    z = lib.rand(ELEMENTS, device=device)
    out = lib.empty(ELEMENTS, device=device)
    rows = x.reshape(8192, 8192)
    bytes32 = ELEMENTS * 4
    found = {
        "copy": (lambda: out.copy_(x), 2 * bytes32),
        "add": (lambda: x + y, 3 * bytes32),
        "mul": (lambda: x * y, 3 * bytes32),
        "sum": (lambda: x.sum(), bytes32),
        "amax_rows": (lambda: lib.amax(rows, dim=1), bytes32),
    }
    for dtype_name in ("float32", "bfloat16"):
        dtype = getattr(lib, dtype_name)
        a = lib.randn(GEMM_SIZE, GEMM_SIZE, device=device).to(dtype)
        b = lib.randn(GEMM_SIZE, GEMM_SIZE, device=device).to(dtype)
        found["mm_" + dtype_name] = (lambda a=a, b=b: lib.mm(a, b), 2 * GEMM_SIZE**3)
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(784, 512), lib.nn.ReLU(), lib.nn.Linear(512, 512), lib.nn.ReLU(),
                              lib.nn.Linear(512, 10)).to(device)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)
    inputs = lib.randn(128, 784, device=device)
    labels = lib.randint(0, 10, (128,), device=device)

    def mlp_step():
        optimizer.zero_grad()
        lib.nn.functional.cross_entropy(model(inputs), labels).backward()
        optimizer.step()

    found["mlp_step"] = (mlp_step, 1)
    functions = compiled_functions(lib)
    if lib is ember:
        COMPILED.update({name: ember.compile(fn) for name, fn in functions.items()})
        functions = COMPILED
    found["sin_cos"] = (lambda: functions["sin_cos"](x), 2 * bytes32)
    found["fma"] = (lambda: functions["fma"](x, y, z), 4 * bytes32)
    found["softmax_rows"] = (lambda: functions["softmax_rows"](rows), 2 * bytes32)
    found["layer_norm_rows"] = (lambda: functions["layer_norm_rows"](rows), 2 * bytes32)
    return found


def compiled_functions(lib):
    """The functions Ember compiles, written for either library."""
    return {
        "sin_cos": lambda t: lib.sin(lib.cos(t)),
        "fma": lambda a, b, c: a * b + c,
        "softmax_rows": lambda t: lib.softmax(t, dim=-1),
        "layer_norm_rows": lambda t: lib.nn.functional.layer_norm(t, (t.shape[-1],)),
    }


# Ember's compiled functions, to report whether they ran generated kernels.
COMPILED = {}


def generated_or_why(compiled):
    reasons = [r for v in compiled._ember_compiled.variants for p in v.graphs for r in p.eager_reasons]
    return "generated" if not reasons else "eager: " + reasons[0]


def print_compiled_values(device):
    """Compiled against eager on fresh inputs: the largest difference and whether they agree."""
    ember.manual_seed(0)
    x, y, z = (ember.randn(1 << 20, device=device) for _ in range(3))
    rows = ember.randn(512, 1000, device=device)
    inputs = {"sin_cos": (x,), "fma": (x, y, z), "softmax_rows": (rows,), "layer_norm_rows": (rows,)}
    print("\n| compiled vs eager | largest difference | agree to 1e-5 | kernels |")
    print("|---|---|---|---|")
    for name, fn in compiled_functions(ember).items():
        compiled = ember.compile(fn)
        with ember.no_grad():
            eager, got = fn(*inputs[name]), compiled(*inputs[name])
        difference = (got - eager).abs().max().item()
        agree = ember.allclose(got, eager, rtol=1e-5, atol=1e-5)
        print(f"| {name} | {difference:.2e} | {'yes' if agree else 'NO'} | {generated_or_why(compiled)} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    syncs = {"ember": lambda: ember.synchronize(args.device), "torch": torch.cuda.synchronize}
    loads = {"ember": workloads(ember, args.device), "torch": workloads(torch, "cuda")}
    seconds = {lib: {name: [] for name in loads[lib]} for lib in loads}
    for _ in range(args.rounds):
        for lib in ("ember", "torch"):
            for name, (step, _) in loads[lib].items():
                seconds[lib][name].append(timed(step, syncs[lib], args.repeats))
    best = {lib: {name: statistics.median(times) for name, times in seconds[lib].items()} for lib in seconds}
    copy_rate = loads["torch"]["copy"][1] / best["torch"]["copy"]
    print(f"GPU: {torch.cuda.get_device_name()}; device-to-device copy through PyTorch: {copy_rate / 1e9:.0f} GB/s\n")
    print("| workload | Ember | PyTorch | Ember / limit | target |")
    print("|---|---|---|---|---|")
    for name in ("add", "mul", "sum", "amax_rows"):
        rates = [loads[lib][name][1] / best[lib][name] for lib in ("ember", "torch")]
        print(f"| {name}, 64M float32 | {rates[0] / 1e9:.0f} GB/s | {rates[1] / 1e9:.0f} GB/s "
              f"| {rates[0] / copy_rate:.0%} of copy | >= 85% |")
    for dtype_name in ("float32", "bfloat16"):
        name = "mm_" + dtype_name
        rates = [loads[lib][name][1] / best[lib][name] for lib in ("ember", "torch")]
        target = ">= 95% of PyTorch" if dtype_name == "bfloat16" else ""
        print(f"| mm {GEMM_SIZE}^3 {dtype_name} | {rates[0] / 1e12:.0f} TFLOP/s | {rates[1] / 1e12:.0f} TFLOP/s "
              f"| {rates[0] / rates[1]:.0%} of PyTorch | {target} |")
    times = [best[lib]["mlp_step"] * 1e3 for lib in ("ember", "torch")]
    print(f"| MLP 784-512-512-10 step, batch 128 | {times[0]:.3f} ms | {times[1]:.3f} ms "
          f"| {times[0] / times[1]:.2f}x PyTorch | <= 1.0x |")
    for name, label, target in (("sin_cos", "compiled sin(cos(x)), 64M float32", ">= 85%"),
                                ("fma", "compiled x * y + z, 64M float32", ">= 85%"),
                                ("softmax_rows", "compiled softmax rows, 8192x8192", ""),
                                ("layer_norm_rows", "compiled layer_norm rows, 8192x8192", "")):
        rates = [loads[lib][name][1] / best[lib][name] for lib in ("ember", "torch")]
        print(f"| {label} ({generated_or_why(COMPILED[name])}) | {rates[0] / 1e9:.0f} GB/s | "
              f"{rates[1] / 1e9:.0f} GB/s (eager) | {rates[0] / copy_rate:.0%} of copy | {target} |")
    print_compiled_values(args.device)


if __name__ == "__main__":
    main()
