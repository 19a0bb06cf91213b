#!/usr/bin/env python3
"""Ember's Python figures side by side with PyTorch 2.13, in one run.

    PYTHONPATH=python:build/python python3 bench/python_bench.py [--rounds 3] [--quick]

Each library runs in its own worker process (this script with --worker), so
neither's thread pool competes with the other's while it is timed; the
workers alternate for --rounds rounds and each figure is the median over
rounds of the per-round medians. The workloads are written once against
PyTorch's API and run on the module given (``ember`` or ``torch``):

- per-op overhead: ``a + b`` on 1-element tensors, plain and with
  requires_grad (the graph is built and dropped every call);
- ``sin(cos(x))`` and ``x*y + z`` on 16M float32 elements, every output fresh;
- a training step of an MLP 784-512-512-10 (batch 128, SGD) and of
  samples/train_digits.py's CNN (batch 64, Adam);
- ``python -c "import <lib>"`` wall time.

Prints a markdown table: both times, their ratio (Ember / PyTorch, lower is
better) and the target ratio. The machine is noisy; only ratios measured in
the same run are meaningful.
"""

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time

LIBRARIES = ("ember", "torch")
ELEMENTWISE_SIZE = 16 * 1024 * 1024

# name -> (what the table calls it, unit, target ratio Ember / PyTorch)
WORKLOADS = {
    "add_1": ("`a + b`, 1 element", "us", 0.8),
    "add_1_requires_grad": ("`a + b`, 1 element, requires_grad", "us", 0.8),
    "sin_cos_16M": ("`sin(cos(x))`, 16M float32, fresh outputs", "ms", 0.5),
    "mul_add_16M": ("`x*y + z`, 16M float32, fresh outputs", "ms", 0.5),
    "mlp_step": ("MLP 784-512-512-10 step, batch 128, SGD", "ms", 0.8),
    "digits_cnn_step": ("digits CNN step, batch 64, Adam", "ms", 0.8),
    # Autograd's in-place and view paths, with no target of their own.
    "select_view": ("`x[0]` of a 256x256 tensor", "us", None),
    "masked_write_step": ("`x = w * 1; x[:, 0] = 0; (x * 3).sum().backward()`, 256x256", "us", None),
    "sigmoid_inplace_step": ("`x = w * 1; x.sigmoid_(); x.sum().backward()`, 256x256", "us", None),
    "norm_backward": ("`w.norm().backward()`, 256x256", "us", None),
    "custom_function_step": ("a Python autograd.Function (x * x) forward and backward, 256x256", "us", None),
    "import": ("`python -c \"import <lib>\"`", "ms", 0.15),
}
UNIT_SECONDS = {"us": 1e-6, "ms": 1e-3}


def median_seconds(step, inner, repeats, synchronize):
    """Median over ``repeats`` runs of the time per call of ``step``, after
    one warm-up call (allocator, primitive caches, thread pool)."""
    step()
    synchronize()
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(inner):
            step()
        synchronize()
        runs.append((time.perf_counter() - started) / inner)
    return statistics.median(runs)


def add_step(lib, requires_grad):
    a = lib.ones(1, requires_grad=requires_grad)
    b = lib.ones(1, requires_grad=requires_grad)
    return lambda: a + b


def sin_cos_step(lib):
    x = lib.rand(ELEMENTWISE_SIZE)
    return lambda: lib.sin(lib.cos(x))


def mul_add_step(lib):
    x, y, z = (lib.rand(ELEMENTWISE_SIZE) for _ in range(3))
    return lambda: x * y + z


def training_step(lib, model, optimizer, inputs, targets):
    def step():
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss.item()
    return step


def mlp_step(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    inputs, targets = lib.randn(128, 784), lib.randint(0, 10, (128,))
    return training_step(lib, model, lib.optim.SGD(model.parameters(), lr=0.01), inputs, targets)


def digits_cnn_step(lib):
    # The CNN of samples/train_digits.py, which imports ember itself and so
    # cannot build PyTorch's copy.
    nn = lib.nn
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 2 * 2, 10))
    inputs, targets = lib.rand(64, 1, 8, 8), lib.randint(0, 10, (64,))
    return training_step(lib, model, lib.optim.Adam(model.parameters(), lr=3e-3), inputs, targets)


def select_view_step(lib):
    x = lib.randn(256, 256)
    return lambda: x[0]


def intermediate_step(lib, write):
    """Forward and backward of `write` applied to an intermediate of a leaf."""
    w = lib.randn(256, 256, requires_grad=True)

    def step():
        x = w * 1
        write(x).sum().backward()
    return step


def masked_write(x):
    x[:, 0] = 0
    return x * 3


def norm_backward_step(lib):
    w = lib.randn(256, 256, requires_grad=True)
    return lambda: w.norm().backward()


def custom_function_step(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 2 * x * grad

    w = lib.randn(256, 256, requires_grad=True)
    return lambda: Square.apply(w).sum().backward()


# name -> (builds the step for a library, calls per timing run at full length)
IN_PROCESS = {
    "add_1": (lambda lib: add_step(lib, requires_grad=False), 100_000),
    "add_1_requires_grad": (lambda lib: add_step(lib, requires_grad=True), 50_000),
    "sin_cos_16M": (sin_cos_step, 10),
    "mul_add_16M": (mul_add_step, 10),
    "mlp_step": (mlp_step, 20),
    "digits_cnn_step": (digits_cnn_step, 50),
    "select_view": (select_view_step, 50_000),
    "masked_write_step": (lambda lib: intermediate_step(lib, masked_write), 300),
    "sigmoid_inplace_step": (lambda lib: intermediate_step(lib, lambda x: x.sigmoid_()), 300),
    "norm_backward": (norm_backward_step, 300),
    "custom_function_step": (custom_function_step, 300),
}


def run_worker(name, repeats, scale):
    """Times every in-process workload on one library; prints seconds as JSON."""
    lib = importlib.import_module(name)
    lib.manual_seed(0)
    # PyTorch's CPU ops finish before they return; Ember's CPU plugin may
    # queue work on a stream.
    synchronize = (lambda: lib.synchronize("cpu")) if name == "ember" else (lambda: None)
    seconds = {}
    for workload, (make_step, inner) in IN_PROCESS.items():
        seconds[workload] = median_seconds(make_step(lib), max(1, inner // scale), repeats, synchronize)
    print(json.dumps(seconds))


def import_seconds(name, repeats):
    """Median wall time of a fresh interpreter importing ``name``."""
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", f"import {name}"], check=True)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)


def measure_round(repeats, scale):
    """One round: each library's worker, then its import time, in turn."""
    figures = {}
    for name in LIBRARIES:
        worker = subprocess.run(
            [sys.executable, __file__, "--worker", name, "--repeats", str(repeats), "--scale", str(scale)],
            check=True, capture_output=True, text=True)
        figures[name] = json.loads(worker.stdout)
        figures[name]["import"] = import_seconds(name, repeats)
    return figures


def versions():
    found = {}
    for name in LIBRARIES:
        probe = subprocess.run([sys.executable, "-c", f"import {name}; print({name}.__version__)"],
                               capture_output=True, text=True)
        found[name] = probe.stdout.strip() if probe.returncode == 0 else None
    return found


def print_table(rounds, found):
    print(f"Ember {found['ember']} vs PyTorch {found['torch']}, {len(rounds)} alternating rounds "
          "(median of rounds; ratio = Ember / PyTorch time)\n")
    print("| workload | Ember | PyTorch | ratio | target | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    for workload, (title, unit, target) in WORKLOADS.items():
        ember, torch = (statistics.median(r[name][workload] for r in rounds) for name in LIBRARIES)
        ratio = ember / torch
        verdict = "-" if target is None else "met" if ratio <= target else "missed"
        scale = UNIT_SECONDS[unit]
        print(f"| {title} | {ember / scale:.2f} {unit} | {torch / scale:.2f} {unit} | {ratio:.2f}x "
              f"| {'-' if target is None else f'<= {target}x'} | {verdict} |")


def add_run_arguments(parser, rounds_help):
    """The options every side-by-side benchmark here takes, the internal
    --worker/--scale ones included."""
    parser.add_argument("--rounds", type=int, default=3, help=rounds_help)
    parser.add_argument("--repeats", type=int, default=5, help="timing runs per workload in a round")
    parser.add_argument("--quick", action="store_true", help="a tenth of the calls per run, to check the script")
    parser.add_argument("--worker", choices=LIBRARIES, help=argparse.SUPPRESS)
    parser.add_argument("--scale", type=int, default=1, help=argparse.SUPPRESS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, "alternating Ember/PyTorch rounds")
    args = parser.parse_args()
    if args.worker:
        run_worker(args.worker, args.repeats, args.scale)
        return 0
    found = versions()
    missing = [name for name, version in found.items() if version is None]
    if missing:
        print(f"python_bench: cannot import {', '.join(missing)} (PYTHONPATH=python:<build>/python for ember; "
              "pip install torch==2.13.0)", file=sys.stderr)
        return 1
    scale = 10 if args.quick else 1
    rounds = []
    for number in range(1, args.rounds + 1):
        print(f"round {number}/{args.rounds}", file=sys.stderr, flush=True)
        rounds.append(measure_round(args.repeats, scale))
    print_table(rounds, found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
