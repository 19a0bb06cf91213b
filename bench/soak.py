"""Soak run: trains the digits CNN of samples/train_digits.py for many steps
and samples the caching allocator's statistics (ember.<device>.memory_stats)
and the process's resident set size, to show that nothing grows once the
first steps have filled the allocator's cache and Python's heaps.

    python bench/soak.py [--steps 10000] [--sample-every 50] [--warmup 1000] [--compile] [--plot soak.png]
                         [--json soak.json]

Every step trains on a batch of the same size (the last, ragged batch of an
epoch is dropped), so after warm-up each step asks the allocator for the
same blocks: allocated and reserved bytes must come back to the same values
and the RSS must stay flat. ``--check`` exits non-zero when they grow after
``--warmup`` steps by more than ``--rss-tolerance-mib`` (RSS) or at all
(allocator). The figures go to --json and, with matplotlib, a plot of
allocated bytes and RSS against the step to --plot (docs/reliability.md).
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "samples"))

import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402
from train_digits import load_split, make_cnn  # noqa: E402

MIB = 1 << 20


def rss_bytes():
    """The resident set size now (not the peak): /proc/self/statm's second field."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--sample-every", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=1000, help="steps before growth is measured")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rss-tolerance-mib", type=float, default=4.0)
    parser.add_argument("--plot", help="write the PNG plot here (needs matplotlib)")
    parser.add_argument("--json", help="write the samples and figures here")
    parser.add_argument("--check", action="store_true", help="fail on growth after warm-up")
    parser.add_argument("--compile", action="store_true",
                        help="train the model through ember.compile (forward and backward compiled)")
    return parser.parse_args(argv)


def soak(args):
    (images, labels), _ = load_split(args.device, args.seed)
    ember.manual_seed(args.seed)
    model = make_cnn().to(args.device)
    optimizer = ember.optim.Adam(model.parameters(), lr=1e-3)
    if args.compile:
        model = ember.compile(model)
    device_module = getattr(ember, ember.device(args.device).type)
    samples = []
    batches_per_epoch = len(labels) // args.batch_size
    order = None
    start = time.perf_counter()
    for step in range(1, args.steps + 1):
        position = (step - 1) % batches_per_epoch
        if position == 0:
            order = ember.randperm(len(labels)).to(images.device)
        batch = order[position * args.batch_size:(position + 1) * args.batch_size]
        loss = F.cross_entropy(model(images[batch]), labels[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % args.sample_every == 0 or step == 1:
            loss_value = loss.item()  # also waits for the step's work
            stats = device_module.memory_stats()
            samples.append({"step": step, "loss": loss_value, "allocated": stats["allocated_bytes"],
                            "reserved": stats["reserved_bytes"], "device_allocs": stats["num_device_allocs"],
                            "rss": rss_bytes()})
    seconds = time.perf_counter() - start
    return samples, seconds


def figures(samples, args, seconds):
    after = [s for s in samples if s["step"] >= args.warmup]
    if not after:
        raise SystemExit(f"soak: no sample at or after the warm-up step {args.warmup}; run more --steps")
    first = after[0]

    def growth(key):
        return max(s[key] for s in after) - first[key]

    steps = [s["step"] for s in after]
    rss = [s["rss"] for s in after]
    mean_step, mean_rss = sum(steps) / len(steps), sum(rss) / len(rss)
    spread = sum((x - mean_step) ** 2 for x in steps)
    slope = sum((x - mean_step) * (y - mean_rss) for x, y in zip(steps, rss)) / spread if spread else 0.0
    return {"steps": args.steps, "warmup": args.warmup, "seconds": round(seconds, 1),
            "steps_per_second": round(args.steps / seconds, 1), "first_loss": samples[0]["loss"],
            "last_loss": samples[-1]["loss"],
            "allocated_at_warmup_mib": round(first["allocated"] / MIB, 3),
            "reserved_at_warmup_mib": round(first["reserved"] / MIB, 3),
            "rss_at_warmup_mib": round(first["rss"] / MIB, 1),
            "allocated_growth_bytes": growth("allocated"), "reserved_growth_bytes": growth("reserved"),
            "device_alloc_growth": growth("device_allocs"), "rss_growth_mib": round(growth("rss") / MIB, 2),
            "rss_slope_bytes_per_1000_steps": round(slope * 1000), "peak_rss_mib": round(max(rss) / MIB, 1)}


def plot(samples, args, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("soak: matplotlib is not installed; no plot written", file=sys.stderr)
        return False
    steps = [s["step"] for s in samples]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    top.plot(steps, [s["allocated"] / MIB for s in samples], label="allocated")
    top.plot(steps, [s["reserved"] / MIB for s in samples], label="reserved", linestyle="--")
    top.set_ylabel("caching allocator (MiB)")
    top.legend()
    bottom.plot(steps, [s["rss"] / MIB for s in samples], color="tab:red")
    bottom.set_ylabel("RSS (MiB)")
    bottom.set_xlabel("training step")
    for axis in (top, bottom):
        axis.axvline(args.warmup, color="grey", linewidth=0.8)
    fig.suptitle(f"digits CNN, batch {args.batch_size}, {args.steps} steps on {args.device} (warm-up to the grey line)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main(argv=None):
    args = parse_args(argv)
    samples, seconds = soak(args)
    result = figures(samples, args, seconds)
    if args.plot:
        result["plot"] = args.plot if plot(samples, args, args.plot) else None
    print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"figures": result, "samples": samples}, f, indent=1)
    if args.check:
        problems = [f"{key} is {result[key]}" for key in ("allocated_growth_bytes", "reserved_growth_bytes",
                                                          "device_alloc_growth") if result[key] != 0]
        if result["rss_growth_mib"] > args.rss_tolerance_mib:
            problems.append(f"RSS grew {result['rss_growth_mib']} MiB after warm-up (tolerance "
                            f"{args.rss_tolerance_mib} MiB)")
        if problems:
            print("soak: growth after warm-up: " + "; ".join(problems), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
