#!/usr/bin/env python3
"""Device time on a GPU (ABI 1.5, docs/profiler.md): profiles a few CUDA ops, checks that each
has its kernel's device time from the plugin's timing events, and prints the table PyTorch users read.

    python3 bench/gpu/profile_check.py [--device cuda]
"""

import argparse
import sys

import ember
from ember.profiler import ProfilerActivity, profile


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    a = ember.randn(2048, 2048, device=args.device)
    (a @ a).sum().item()  # warm-up: cuBLAS handles, first launches
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            b = (a @ a).relu()
        b.sum().item()
    averages = {avg.key: avg for avg in prof.key_averages()}
    print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=10))
    missing = [name for name in ("mm",) if name not in averages or averages[name].self_device_time_total <= 0]
    if missing:
        print(f"profile_check: no device time for {', '.join(missing)}", file=sys.stderr)
        return 1
    print(f"profile_check: mm {averages['mm'].self_device_time_total / 5:.1f} us of device time per call")
    return 0


if __name__ == "__main__":
    sys.exit(main())
