#!/usr/bin/env python3
"""An optimizer's step alone, eager foreach and compiled, Ember and PyTorch 2.13, in alternating workers.

    bench/compile_optimizer_bench.py [--rounds 3] [--repeats 50]

Parameters with fixed gradients; a step is `optimizer.step()` (Ember's is foreach, PyTorch's asks
for `foreach=True`), compiled as `ember.compile(optimizer.step)` / `torch.compile(optimizer.step)`.
Parameter sets: the digits MLP of samples/train_digits.py (64-128-64-10, 6 tensors, 17,226
elements) and 50 Linear(64, 64) layers (100 tensors, 208,000 elements), each with SGD and
momentum and with AdamW. Prints the median microseconds per step of each (library, mode) and
Ember compiled against each of the others; each worker also reports the compiled plan's kernels
and updates written in place.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_bench import (CONFIGS, median_ms, median_of, results_of_workers,  # noqa: E402
                           print_errors, ratio)

CASES = ("digits MLP, SGD momentum", "digits MLP, AdamW", "50 x Linear(64,64), SGD momentum",
         "50 x Linear(64,64), AdamW")


def parameter_sets(torch):
    nn = torch.nn
    digits = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    many = nn.Sequential(*[nn.Linear(64, 64) for _ in range(50)])
    return {"digits MLP": digits, "50 x Linear(64,64)": many}


def optimizer_for(torch, library, name, params):
    extra = {"foreach": True} if library == "torch" else {}
    if name == "SGD momentum":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9, **extra)
    return torch.optim.AdamW(params, lr=1e-4, **extra)


def worker(library, mode, repeats):
    torch = __import__(library)
    torch.manual_seed(0)
    out = {}
    for case in CASES:
        model_name, optimizer_name = case.split(", ")
        params = list(parameter_sets(torch)[model_name].parameters())
        for p in params:
            p.grad = torch.randn(p.shape) * 1e-2
        optimizer = optimizer_for(torch, library, optimizer_name, params)
        step = optimizer.step if mode == "eager" else torch.compile(optimizer.step)
        try:
            with torch.no_grad():
                out[case] = median_ms(step, (), repeats, warmup=3) * 1e3  # µs
            if library == "ember" and mode == "compiled":
                plan = torch.compiler.explain(step).graphs[-1]
                out[case + " plan"] = f"{plan.num_kernels} kernels, {plan.num_in_place_updates} in place"
        except Exception as e:  # reported, not fatal
            out[case] = f"error: {type(e).__name__}: {e}"[:160]
    print(json.dumps(out))


def main():
    results = results_of_workers(__file__, worker, repeats=50)
    if results is None:
        return
    print(f"{'step (µs)':34s} {'ember eager':>11s} {'ember comp':>11s} {'torch eager':>11s} {'torch.comp':>11s} "
          f"{'comp/e.eager':>12s} {'comp/t.eager':>12s} {'comp/t.comp':>11s}")
    for name in CASES:
        ee, ec, te, tc = (median_of(results, c, name) for c in CONFIGS)
        times = " ".join(f"{v:11.1f}" if v is not None else f"{'-':>11s}" for v in (ee, ec, te, tc))
        print(f"{name:34s} {times} {ratio(ec, ee, 12)} {ratio(ec, te, 12)} {ratio(ec, tc, 11)}")
    for name in CASES:
        plans = set(results[("ember", "compiled")].get(name + " plan", []))
        print(f"ember compiled plan, {name}: {', '.join(sorted(plans))}")
    print_errors(results)


if __name__ == "__main__":
    main()
