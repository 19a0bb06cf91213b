#!/usr/bin/env python3
"""ember.compile beside Ember eager, PyTorch eager and torch.compile, in alternating worker processes.

    bench/compile_bench.py [--rounds 3] [--quick]

Each round starts one worker process per (library, mode) in turn; a worker runs every workload
with `import <library> as torch`, so the workloads are written once. Prints a table of median
milliseconds per call and the ratios the compiler's targets are set against, plus cold-compile
and warm-cache first-call times (each from a fresh process and, for cold, an empty cache).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

N = 1 << 24  # 16M float32


def transformer_block(torch, d=256, heads=4):
    """layer_norm, self-attention, a GELU MLP, both residuals: the transformer-style block."""
    F = torch.nn.functional

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = heads
            self.norm1, self.norm2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
            self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
            self.fc1, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

        def forward(self, h):
            b, t, d = h.shape
            q, k, v = self.qkv(self.norm1(h)).chunk(3, dim=-1)
            q, k, v = (u.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for u in (q, k, v))
            att = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
            h = h + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
            return h + self.fc2(F.gelu(self.fc1(self.norm2(h))))

    return Block()


def workloads(torch, quick):
    F = torch.nn.functional
    n = N // 16 if quick else N
    x, y, z = (torch.randn(n) for _ in range(3))
    rows = torch.randn(4096 // (4 if quick else 1), 1024)
    rows_16m = torch.randn(n // 1024, 1024)
    ln = torch.nn.LayerNorm(1024)
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                              torch.nn.ReLU(), torch.nn.Linear(512, 10))
    digits = torch.randn(128, 784)

    block = transformer_block(torch)
    tokens = torch.randn(8, 128, 256)
    return {
        "sin(cos(x)) 16M": (lambda x: torch.sin(torch.cos(x)), (x,)),
        "x*y+z 16M": (lambda x, y, z: x * y + z, (x, y, z)),
        "gelu 16M": (lambda x: F.gelu(x), (x,)),
        "softmax rows 4096x1024": (lambda r: torch.softmax(r, dim=-1), (rows,)),
        "layer_norm 4096x1024": (ln, (rows,)),
        "softmax rows 16M (16384x1024)": (lambda r: torch.softmax(r, dim=-1), (rows_16m,)),
        "layer_norm 16M (16384x1024)": (ln, (rows_16m,)),
        "(x-mean)/std 16M": (lambda x: (x - x.mean()) / x.std(), (x,)),
        "MLP 784-512-512-10 b128": (mlp, (digits,)),
        "transformer block 8x128x256": (block, (tokens,)),
    }


WARM_UP_SECONDS = 0.5


def median_ms(fn, args, repeats, warmup=2):
    """Median of `repeats` timed calls, after `warmup` calls and at least
    WARM_UP_SECONDS of them: a fresh process on an idle machine runs its
    first tenths of a second slowly (docs/benchmarks.md, 2026-12-07)."""
    for _ in range(warmup):
        fn(*args)
    warm_until = time.perf_counter() + WARM_UP_SECONDS
    while time.perf_counter() < warm_until:
        fn(*args)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def worker(library, mode, quick, repeats):
    torch = __import__(library)
    torch.manual_seed(0)
    out = {}
    with torch.no_grad():
        for name, (fn, args) in workloads(torch, quick).items():
            run = torch.compile(fn) if mode == "compiled" else fn
            try:
                out[name] = median_ms(run, args, repeats)
            except Exception as e:  # a workload one library cannot run is reported, not fatal
                out[name] = f"error: {type(e).__name__}: {e}"[:120]
    print(json.dumps(out))


def first_call(library, cache_dir):
    """Seconds of the first compiled call of sin(cos(x)) in this fresh process."""
    torch = __import__(library)
    x = torch.randn(1 << 20)
    f = torch.compile(lambda x: torch.sin(torch.cos(x)))
    t0 = time.perf_counter()
    f(x)
    print(json.dumps({"seconds": time.perf_counter() - t0}))


CONFIGS = [("ember", "eager"), ("ember", "compiled"), ("torch", "eager"), ("torch", "compiled")]


def alternate_workers(script, rounds, repeats, extra=()):
    """Runs one worker of `script` per (library, mode) of CONFIGS in turn, `rounds` times;
    returns each config's values by name, one per round."""
    results = {c: {} for c in CONFIGS}
    for _ in range(rounds):
        for library, mode in CONFIGS:
            reply = spawn("--worker", library, mode, "--repeats", str(repeats), *extra, script=script)
            for name, value in reply.items():
                results[(library, mode)].setdefault(name, []).append(value)
    return results


def median_of(results, config, name):
    """The median of a config's numbers for `name`, or None when every round failed."""
    values = [v for v in results[config].get(name, []) if isinstance(v, (int, float))]
    return statistics.median(values) if values else None


def ratio(a, b, width):
    """a / b in a column of `width`, or a dash where either is missing."""
    return f"{a / b:{width}.2f}" if a and b else f"{'-':>{width}s}"


def print_errors(results):
    """Every error a worker reported, with its config and workload."""
    for (library, mode), by_name in results.items():
        for name, values in by_name.items():
            for v in values:
                if isinstance(v, str) and (name == "error" or v.startswith("error")):
                    print(f"{library} {mode}: {name}", v)


def spawn(*args, env=None, script=__file__):
    result = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, env=env,
                            timeout=1800)
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "failed"}
    return json.loads(result.stdout.strip().splitlines()[-1])


def bench_arguments(repeats):
    """--rounds, --repeats and --worker LIBRARY MODE, which every compile benchmark takes."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=repeats)
    parser.add_argument("--worker", nargs=2, metavar=("LIBRARY", "MODE"))
    return parser


def results_of_workers(script, worker, repeats):
    """A compile benchmark's alternating workers' results by config; None in a worker process, after
    `worker(library, mode, repeats)` ran."""
    a = bench_arguments(repeats).parse_args()
    if a.worker:
        worker(a.worker[0], a.worker[1], a.repeats)
        return None
    return alternate_workers(script, a.rounds, a.repeats)


def main():
    parser = bench_arguments(repeats=9)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--first-call", metavar="LIBRARY")
    a = parser.parse_args()
    if a.worker:
        return worker(a.worker[0], a.worker[1], a.quick, a.repeats)
    if a.first_call:
        return first_call(a.first_call, None)

    configs = [("ember", "eager"), ("ember", "compiled"), ("torch", "eager"), ("torch", "compiled")]
    results = {c: {} for c in configs}
    extra = ["--quick"] if a.quick else []
    for _ in range(a.rounds):
        for library, mode in configs:
            for name, ms in spawn("--worker", library, mode, "--repeats", str(a.repeats), *extra).items():
                results[(library, mode)].setdefault(name, []).append(ms)

    def cell(config, name):
        values = [v for v in results[config].get(name, []) if isinstance(v, float)]
        return statistics.median(values) if values else None

    names = list(next(iter(results.values())).keys())
    print(f"{'workload':30s} {'ember eager':>12s} {'ember comp':>12s} {'torch eager':>12s} "
          f"{'torch.compile':>13s} {'comp/eager':>10s} {'comp/t.comp':>11s}")
    for name in names:
        ee, ec, te, tc = (cell(c, name) for c in configs)
        fmt = lambda v: f"{v:12.2f}" if v is not None else f"{'-':>12s}"
        r1 = f"{ec / ee:10.2f}" if ec and ee else f"{'-':>10s}"
        r2 = f"{ec / tc:11.2f}" if ec and tc else f"{'-':>11s}"
        print(f"{name:30s} {fmt(ee)} {fmt(ec)} {fmt(te)} {fmt(tc):>13s} {r1} {r2}")

    # x*y+z moves four float32 arrays (three reads, one write), the STREAM triad's
    # counting; compare with the machine's triad bandwidth (bench/bandwidth.cpp).
    n = N // 16 if a.quick else N
    triad = cell(("ember", "compiled"), "x*y+z 16M")
    if triad:
        print(f"x*y+z compiled: {4 * 4 * n / (triad * 1e-3) / 1e9:.1f} GB/s")

    with tempfile.TemporaryDirectory() as empty:
        env = dict(os.environ, EMBER_CACHE_DIR=os.path.join(empty, "ember"),
                   TORCHINDUCTOR_CACHE_DIR=os.path.join(empty, "inductor"))
        cold_ember = spawn("--first-call", "ember", env=env)
        warm_ember = spawn("--first-call", "ember", env=env)
        cold_torch = spawn("--first-call", "torch", env=env)
        warm_torch = spawn("--first-call", "torch", env=env)
    print(f"first call of compiled sin(cos(x)), seconds: ember cold {cold_ember}, ember warm cache {warm_ember}, "
          f"torch.compile cold {cold_torch}, torch.compile warm cache {warm_torch}")


if __name__ == "__main__":
    main()
