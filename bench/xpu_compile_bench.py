#!/usr/bin/env python3
"""ember.compile on the xpu device beside xpu eager, in one process, side by side.

    bench/xpu_compile_bench.py [--plugin build/plugins/xpu/libember_plugin_xpu.so] [--repeats 15]

Each workload runs eagerly and compiled (through the xpu plugin's OpenCL C generator) in alternation;
every call ends with ember.xpu.synchronize(). Prints median milliseconds per call and the speedup.
"""
import argparse
import pathlib
import statistics
import time

import ember

WORKLOADS = {
    "sin(cos(x)) 1M float32": (lambda x: ember.sin(ember.cos(x)), lambda: ember.randn(1 << 20)),
    "softmax rows 1024x1024": (lambda r: ember.softmax(r, dim=-1), lambda: ember.randn(1024, 1024)),
}


def call_ms(fn, x):
    t0 = time.perf_counter()
    fn(x)
    ember.xpu.synchronize()
    return (time.perf_counter() - t0) * 1e3


def main():
    default = pathlib.Path(ember._C.__file__).resolve().parents[2] / "plugins" / "xpu" / "libember_plugin_xpu.so"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", default=str(default))
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    ember.load_plugin(args.plugin)
    print(f"device: {ember.xpu.get_device_name(0) if hasattr(ember.xpu, 'get_device_name') else 'xpu:0'}")
    print(f"| workload | xpu eager (ms) | xpu compiled (ms) | eager / compiled |")
    print("|---|---|---|---|")
    with ember.no_grad():
        for name, (fn, make) in WORKLOADS.items():
            x = make().to("xpu")
            compiled = ember.compile(fn)
            for run in (fn, compiled, fn, compiled):  # warm-up: program builds, caches
                call_ms(run, x)
            eager, fast = [], []
            for _ in range(args.repeats):
                eager.append(call_ms(fn, x))
                fast.append(call_ms(compiled, x))
            plans = [p for v in compiled._ember_compiled.variants for p in v.graphs]
            assert all(not p.eager_reasons for p in plans), [p.eager_reasons for p in plans]
            e, c = statistics.median(eager), statistics.median(fast)
            print(f"| {name} | {e:.2f} | {c:.2f} | {e / c:.1f}x |")


if __name__ == "__main__":
    main()
