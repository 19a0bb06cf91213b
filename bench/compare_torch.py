#!/usr/bin/env python3
"""PyTorch (from Python) on the same workloads as ember_bench, for reference.

Prints one JSON object: per benchmark the median seconds per call over
--repeats timing runs, plus the derived us/op, GB/s or GFLOP/s. Uses the
same sizes and byte counts as ember_bench (STREAM counting).

--suite autograd runs only the autograd workloads of bench/autograd.cpp
(same shapes and loop bodies, grads set to None every iteration); run.sh
runs it in alternating rounds with ember_bench and ember_bench_libtorch.
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


def clear_grads(params):
    for p in params:
        p.grad = None


def autograd_suite(res, scale, r):
    """bench/autograd.cpp's workloads: seconds per forward + backward."""
    torch.manual_seed(0)
    a, b = (torch.randn(16).requires_grad_() for _ in range(2))

    def mul_sum():
        (a * b).sum().backward()
        clear_grads((a, b))

    s = median_seconds(mul_sum, 20_000 // scale, r)
    res["autograd_mul_sum_16"] = {"seconds": s, "us_per_op": s * 1e6}

    F = torch.nn.functional
    batch = 128
    x = torch.randn(batch, 784)
    y = torch.tensor([(i * 7) % 10 for i in range(batch)])

    def leaf(shape, scale_):
        return (torch.randn(*shape) * scale_).requires_grad_()

    p = [leaf((512, 784), 0.035), leaf((512,), 0.01), leaf((512, 512), 0.044),
         leaf((512,), 0.01), leaf((10, 512), 0.044), leaf((10,), 0.01)]

    def mlp_step():
        h1 = F.relu(F.linear(x, p[0], p[1]))
        h2 = F.relu(F.linear(h1, p[2], p[3]))
        F.cross_entropy(F.linear(h2, p[4], p[5]), y).backward()
        clear_grads(p)

    s = median_seconds(mlp_step, max(1, 100 // scale), r)
    res["autograd_mlp_step"] = {"seconds": s, "ms_per_op": s * 1e3}

    c = [leaf((32, 64, 56, 56), 1.0), leaf((64, 64, 3, 3), 0.04), leaf((64,), 0.01)]
    grad_out = torch.randn(32, 64, 56, 56)

    def conv_step():
        F.conv2d(c[0], c[1], c[2], padding=1).backward(grad_out)
        clear_grads(c)

    s = median_seconds(conv_step, 1, r)
    flop = 3.0 * 2 * 32 * 56 * 56 * 64 * 64 * 9
    res["autograd_conv2d"] = {"seconds": s, "ms_per_op": s * 1e3, "GFLOPS": flop / s / 1e9}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="fewer inner iterations")
    ap.add_argument("--suite", choices=("base", "autograd", "all"), default="base")
    args = ap.parse_args()
    scale = 10 if args.quick else 1
    r = args.repeats
    out = {
        "torch_version": torch.__version__,
        "threads": torch.get_num_threads(),
        "results": {},
    }
    res = out["results"]
    if args.suite in ("autograd", "all"):
        autograd_suite(res, scale, r)
    if args.suite == "autograd":
        print(json.dumps(out, indent=2))
        return

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
