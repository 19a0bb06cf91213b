#!/usr/bin/env python3
"""Two builds of Ember side by side, in one run: the dispatch, bandwidth and
autograd benchmarks (bench/ember_bench) and the Python workloads of
bench/python_bench.py, each tree's in turn for --rounds alternating rounds.

    bench/compare_builds.py --before OLD_TREE --after NEW_TREE [--rounds 3] [--quick]

Each tree must have a Release build in <tree>/build-bench with ember_bench,
the CPU plugin and the Python extension (bench/run.sh builds it; add the
ember_python target). Prints a markdown table of medians over rounds and the
ratio after / before (lower is faster). Use it to show that a change to the
core costs nothing: only ratios measured in the same run are meaningful.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

CPP_FILTER = "BM_Dispatch_|BM_Stream_Ember|BM_Autograd_MlpStep"
HERE = pathlib.Path(__file__).resolve().parent


def cpp_figures(tree, repetitions):
    """Median real time, in ns, of every C++ benchmark matching CPP_FILTER."""
    binary = tree / "build-bench" / "bench" / "ember_bench"
    out = subprocess.run([str(binary), f"--benchmark_filter={CPP_FILTER}", "--benchmark_format=json",
                          f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true"],
                         check=True, capture_output=True, text=True).stdout
    unit_ns = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    return {b["run_name"]: b["real_time"] * unit_ns[b["time_unit"]]
            for b in json.loads(out)["benchmarks"] if b.get("aggregate_name") == "median"}


def python_figures(tree, repeats, scale):
    """Seconds per call of python_bench's workloads, on this tree's build."""
    env = dict(os.environ, PYTHONPATH=f"{tree / 'python'}:{tree / 'build-bench' / 'python'}")
    out = subprocess.run([sys.executable, str(HERE / "python_bench.py"), "--worker", "ember", "--repeats",
                          str(repeats), "--scale", str(scale)], check=True, capture_output=True, text=True,
                         env=env).stdout
    return {f"python {name}": seconds * 1e9 for name, seconds in json.loads(out).items()}


def format_ns(ns):
    for unit, size in (("ms", 1e6), ("µs", 1e3)):
        if ns >= size:
            return f"{ns / size:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=pathlib.Path, required=True)
    parser.add_argument("--after", type=pathlib.Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer calls and repetitions, to check the script")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    repetitions, scale = (2, 10) if args.quick else (5, 1)
    rounds = {name: [] for name in trees}
    for number in range(args.rounds):
        print(f"round {number + 1}/{args.rounds}", file=sys.stderr, flush=True)
        # Alternate which tree goes first, so neither always runs on a warmer machine.
        order = list(trees) if number % 2 == 0 else list(reversed(trees))
        for name in order:
            figures = cpp_figures(trees[name], repetitions)
            figures.update(python_figures(trees[name], repetitions, scale))
            rounds[name].append(figures)
    print(f"{args.rounds} alternating rounds; before = {trees['before']}, after = {trees['after']}\n")
    print("| benchmark | before | after | after / before |")
    print("|---|---:|---:|---:|")
    for key in rounds["before"][0]:
        before, after = (statistics.median(r[key] for r in rounds[name]) for name in trees)
        print(f"| {key} | {format_ns(before)} | {format_ns(after)} | {after / before:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
