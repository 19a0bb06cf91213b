#!/usr/bin/env python3
"""PyTorch (from Python) on the same workloads as ember_bench, for reference.

Prints one JSON object: per benchmark the median seconds per call over
--repeats timing runs, plus the derived us/op, GB/s or GFLOP/s. Uses the
same sizes and byte counts as ember_bench (STREAM counting).
"""
import argparse
import json
import statistics
import sys
import time

try:
    import torch
except ImportError:  # run.sh skips the Python comparison without torch
    print(json.dumps({"error": "torch not importable"}))
    sys.exit(0)

N_STREAM = 1 << 26  # 64M float32 = 256 MiB per operand


def median_seconds(fn, inner, repeats):
    fn()  # warm-up (allocator, primitive caches, thread pool)
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        runs.append((time.perf_counter() - t0) / inner)
    return statistics.median(runs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="fewer inner iterations")
    args = ap.parse_args()
    scale = 10 if args.quick else 1
    r = args.repeats
    out = {
        "torch_version": torch.__version__,
        "threads": torch.get_num_threads(),
        "results": {},
    }
    res = out["results"]

    a1 = torch.full((1,), 1.0)
    b1 = torch.full((1,), 2.0)
    s = median_seconds(lambda: a1 + b1, 200_000 // scale, r)
    res["dispatch_add"] = {"seconds": s, "us_per_op": s * 1e6}
    with torch.inference_mode():
        a1i = torch.full((1,), 1.0)
        b1i = torch.full((1,), 2.0)
        s = median_seconds(lambda: a1i + b1i, 200_000 // scale, r)
    res["dispatch_add_inference"] = {"seconds": s, "us_per_op": s * 1e6}

    a = torch.full((N_STREAM,), 1.0)
    b = torch.full((N_STREAM,), 2.0)
    nbytes = N_STREAM * 4
    for name, fn, arrays in (
        ("add", lambda: torch.add(a, b), 3),
        ("mul", lambda: torch.mul(a, b), 3),
        ("sum", lambda: torch.sum(a), 1),
    ):
        s = median_seconds(fn, max(1, 10 // scale), r)
        res[name] = {"seconds": s, "GBps": arrays * nbytes / s / 1e9}
    del a, b

    torch.manual_seed(0)
    for n in (1024, 2048):
        x = torch.rand(n, n)
        y = torch.rand(n, n)
        s = median_seconds(lambda: torch.mm(x, y), max(1, (20 if n == 1024 else 4) // scale), r)
        res[f"mm_{n}"] = {"seconds": s, "GFLOPS": 2.0 * n**3 / s / 1e9}

    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
