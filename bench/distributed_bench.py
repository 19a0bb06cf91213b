"""ember.distributed beside Gloo called directly from C++ and PyTorch 2.13's
ProcessGroupGloo, in one run, at world size 2 on this machine (loopback):

- all_reduce bus bandwidth for 1, 16 and 64 MiB of float32
  (busbw = bytes x 2(n-1)/n / time, as nccl-tests count it);
- the latency of a 4 KiB all_reduce;
- the step of DistributedDataParallel on the digits MLP (64-128-10, 9,610
  parameters... here 64-128-64-10, batch 32 per rank) against the same model
  without DDP in one process.

    python bench/distributed_bench.py [--gloo-binary build-bench/bench/ember_bench_gloo_allreduce]

Ember is measured twice: as it runs by default (every collective's
fingerprint compared across ranks first) and with EMBER_DISTRIBUTED_DEBUG=OFF.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = [1 << 20, 16 << 20, 64 << 20]
LATENCY_BYTES = 4096


def timed(fn, repeats, warmup=3):
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def mlp(nn):
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def worker(library, rank, world, store_dir):
    if library == "torch":
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel
    else:
        import ember as torch
        import ember.distributed as dist
        from ember.nn.parallel import DistributedDataParallel
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store_dir}/store", rank=rank, world_size=world)
    result = {"busbw": {}, "seconds": {}}
    for size in SIZES:
        t = torch.ones(size // 4)
        seconds = timed(lambda: dist.all_reduce(t), repeats=7 if size > (1 << 20) else 15)
        result["seconds"][size] = seconds
        result["busbw"][size] = size * 2 * (world - 1) / world / seconds / 1e9
    small = torch.ones(LATENCY_BYTES // 4)
    result["latency_us"] = timed(lambda: dist.all_reduce(small), repeats=300) * 1e6
    torch.manual_seed(0)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    for name, model in (("local", mlp(torch.nn)), ("ddp", DistributedDataParallel(mlp(torch.nn)))):
        opt = torch.optim.SGD(model.parameters(), lr=0.01)

        def step():
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        result[f"{name}_step_ms"] = timed(step, repeats=100) * 1e3
    dist.destroy_process_group()
    if rank == 0:
        print(json.dumps(result))


def run_gang(command_of, world=2, env=None):
    with tempfile.TemporaryDirectory() as store_dir:
        procs = [subprocess.Popen(command_of(r, store_dir), stdout=subprocess.PIPE, text=True,
                                  env=dict(os.environ, OMP_NUM_THREADS="1", **(env or {})))
                 for r in range(world)]
        outputs = [p.communicate(timeout=600)[0] for p in procs]
        if any(p.returncode for p in procs):
            raise RuntimeError(f"a rank failed: {[p.returncode for p in procs]}")
        return outputs[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gloo-binary", default=os.path.join("build-bench", "bench", "ember_bench_gloo_allreduce"))
    parser.add_argument("--worker", nargs=4, metavar=("LIBRARY", "RANK", "WORLD", "STORE_DIR"))
    args = parser.parse_args()
    if args.worker:
        library, rank, world, store_dir = args.worker
        worker(library, int(rank), int(world), store_dir)
        return
    rows = {}
    if os.path.exists(args.gloo_binary):
        out = run_gang(lambda r, d: [args.gloo_binary, str(r), "2", d, "15"] + [str(s) for s in SIZES])
        gloo = {int(line.split()[0]): float(line.split()[1]) for line in out.split("\n") if line.strip()}
        out = run_gang(lambda r, d: [args.gloo_binary, str(r), "2", d, "300", str(LATENCY_BYTES)])
        rows["gloo (C++)"] = {"busbw": {s: s / gloo[s] / 1e9 for s in SIZES},
                              "latency_us": float(out.split()[1]) * 1e6}
    else:
        print(f"(no {args.gloo_binary}: build it with -DEMBER_BUILD_BENCHMARKS=ON to compare with Gloo itself)")
    for label, library, env in (("ember", "ember", None), ("ember (DEBUG=OFF)", "ember", {"EMBER_DISTRIBUTED_DEBUG": "OFF"}),
                                ("torch 2.13", "torch", None)):
        out = run_gang(lambda r, d: [sys.executable, __file__, "--worker", library, str(r), "2", d], env=env)
        rows[label] = json.loads(out)
        rows[label]["busbw"] = {int(k): v for k, v in rows[label]["busbw"].items()}
    print("| world 2 | " + " | ".join(f"busbw {s >> 20} MiB GB/s" for s in SIZES) +
          " | 4 KiB latency µs | MLP step local ms | DDP step ms |")
    print("|---" * (len(SIZES) + 4) + "|")
    for label, row in rows.items():
        cells = [f"{row['busbw'][s]:.2f}" for s in SIZES] + [f"{row['latency_us']:.0f}"]
        cells += [f"{row[k]:.2f}" if k in row else "" for k in ("local_step_ms", "ddp_step_ms")]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
