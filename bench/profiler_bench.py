#!/usr/bin/env python3
"""The profiler's cost per op: a loop of small ops with profiling off, under
ember.profiler.profile, and the same loop in PyTorch 2.13 off and under
torch.profiler.profile, side by side in one run.

    PYTHONPATH=python:build/python python3 bench/profiler_bench.py [--rounds 5] [--iterations 20000]

Each library runs in its own worker process (this script with --worker), the
workers alternate for --rounds rounds, and each figure is the median over
rounds. The loop is written once against PyTorch's API: per iteration
``c = a + b; d = c * b; e = d.sigmoid(); f = e.sum()`` on 64-element float32
tensors. Ops per iteration are counted from the profile itself (the
dispatcher's events for Ember, the aten:: events for PyTorch), so the
overhead per op is (time on - time off) / ops recorded. Only the loop is
timed, not collecting the events at the end. The machine is noisy; compare
figures of one run only.
"""

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time

LIBRARIES = ("ember", "torch")


def small_op_loop(lib, iterations):
    a = lib.ones(64)
    b = lib.ones(64) * 0.5

    def run():
        for _ in range(iterations):
            c = a + b
            d = c * b
            e = d.sigmoid()
            e.sum()

    return run


def profiler_of(lib):
    return lambda: lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU])


def recorded_ops(lib, prof):
    events = prof.events()
    if lib.__name__ == "ember":
        return sum(1 for e in events if not e.is_user_annotation and not e.is_memory)
    return sum(1 for e in events if e.name.startswith("aten::"))


def run_worker(name, iterations):
    lib = importlib.import_module(name)
    lib.set_num_threads(1)
    run = small_op_loop(lib, iterations)
    run()  # warm-up: allocator, caches
    start = time.perf_counter()
    run()
    off = time.perf_counter() - start
    make_profile = profiler_of(lib)
    with make_profile():  # warm-up of the profiler itself (PyTorch's Kineto starts lazily)
        small_op_loop(lib, 10)()
    with make_profile() as prof:
        start = time.perf_counter()
        run()
        on = time.perf_counter() - start
    ops = recorded_ops(lib, prof)
    return {"off": off, "on": on, "ops": ops}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20000)
    parser.add_argument("--worker", choices=LIBRARIES)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(run_worker(args.worker, args.iterations)))
        return
    results = {name: [] for name in LIBRARIES}
    for _ in range(args.rounds):
        for name in LIBRARIES:
            out = subprocess.run([sys.executable, __file__, "--worker", name, "--iterations", str(args.iterations)],
                                 check=True, capture_output=True, text=True).stdout
            results[name].append(json.loads(out.strip().splitlines()[-1]))
    print(f"{args.iterations} iterations of `c = a + b; d = c * b; e = d.sigmoid(); e.sum()`, 64 float32, "
          f"1 thread; median of {args.rounds} rounds\n")
    print("| library | ops recorded per iteration | off, us/op | profiling, us/op | overhead, us/op |")
    print("|---|---|---|---|---|")
    for name in LIBRARIES:
        runs = results[name]
        ops = statistics.median(r["ops"] for r in runs)
        per_iteration = ops / args.iterations
        off = statistics.median(r["off"] / r["ops"] for r in runs) * 1e6
        on = statistics.median(r["on"] / r["ops"] for r in runs) * 1e6
        overhead = statistics.median((r["on"] - r["off"]) / r["ops"] for r in runs) * 1e6
        label = "Ember (ember.profiler)" if name == "ember" else "PyTorch 2.13 (torch.profiler)"
        print(f"| {label} | {per_iteration:g} | {off:.3f} | {on:.3f} | {overhead:.3f} |")


if __name__ == "__main__":
    main()
