#!/usr/bin/env python3
"""What the kernel watchdog (Note [Kernel watchdog]) costs per op: a loop of small adds with
ember.set_kernel_timeout off and on, alternating for --rounds rounds; median per op.

    PYTHONPATH=python:build/python python3 bench/watchdog_bench.py [--rounds 5] [--iterations 20000]
"""

import argparse
import statistics
import time

import ember


def microseconds_per_add(a, b, iterations):
    start = time.perf_counter()
    for _ in range(iterations):
        a + b
    return (time.perf_counter() - start) / iterations * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20000)
    args = parser.parse_args()
    a, b = ember.ones(64), ember.ones(64)
    times = {"off": [], "on (10 s timeout)": []}
    try:
        for _ in range(args.rounds):
            ember.set_kernel_timeout(None)
            times["off"].append(microseconds_per_add(a, b, args.iterations))
            ember.set_kernel_timeout(10)
            times["on (10 s timeout)"].append(microseconds_per_add(a, b, args.iterations))
    finally:
        ember.set_kernel_timeout(None)
    print(f"{args.iterations} adds of 64 float32, median of {args.rounds} rounds\n")
    print("| watchdog | µs per op |\n|---|---|")
    for name, values in times.items():
        print(f"| {name} | {statistics.median(values):.2f} |")


if __name__ == "__main__":
    main()
