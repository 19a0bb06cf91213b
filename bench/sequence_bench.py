#!/usr/bin/env python3
"""Sequence-model figures, Ember beside PyTorch 2.13 in one run.

    PYTHONPATH=python:build/python python3 bench/sequence_bench.py [--rounds 3]

Each (library, workload) runs in a fresh worker process (this script with
--worker), so neither library's threads compete with the other's while it
is timed; a worker steps for a second before it times five steps (a fresh
process on an idle machine runs its first tenths of a second slowly); the
workers alternate for --rounds rounds and each time is the median over
rounds of the per-round medians. The workloads are written once
against PyTorch's API:

- an LSTM language model's training step: embedding 256, 2-layer LSTM with
  hidden 256, decoder to a vocabulary of 1000, sequence 64, batch 32,
  NLLLoss, clip_grad_norm_ and the SGD update of word_language_model;
- F.scaled_dot_product_attention forward and backward, batch 8, 8 heads,
  sequence 512, head dim 64 (plain and causal);
- a small GPT's training step: nanoGPT's model as published
  (python/tests/programs/nanogpt.py) with 4 layers, 4 heads, 128 dims, a
  context of 128 and a vocabulary of 65, batch 16, its AdamW groups from
  configure_optimizers and clip_grad_norm_(1.0), as nanoGPT's train.py;
- the peak memory of one attention forward and backward at sequence 4096
  (batch 1, 8 heads, head dim 64): the fused op against the full-matrix
  approach (q k^T, softmax, times v, written out), as the increase of the
  worker's peak resident set over what it held before the call.

Prints a markdown table; only ratios measured in the same run mean much on
a shared machine.
"""

import argparse
import contextlib
import importlib
import importlib.util
import io
import json
import math
import pathlib
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compile_training_bench import lstm_language_model  # noqa: E402

LIBRARIES = ("ember", "torch")
TIMED = {
    "lstm_lm_step": ("LSTM LM training step (2 layers, hidden 256, seq 64, batch 32)", 1.0),
    "sdpa_512": ("SDPA forward + backward (batch 8, 8 heads, seq 512, head dim 64)", 1.0),
    "sdpa_512_causal": ("the same, `is_causal=True`", None),
    "gpt_step": ("small GPT training step (nanoGPT, 4 layers, 128 dims, context 128, batch 16), AdamW", 1.0),
}
NANOGPT = pathlib.Path(__file__).resolve().parent.parent / "python" / "tests" / "programs" / "nanogpt.py"
MEMORY = ("sdpa_4096_fused", "sdpa_4096_full_matrix")
WARM_UP_SECONDS = 1.0


def lstm_lm_step(lib):
    nn = lib.nn
    vocab, steps, batch = 1000, 64, 32
    lib.manual_seed(0)
    model, criterion = lstm_language_model(lib, vocab, 256), nn.NLLLoss()
    x, y = lib.randint(0, vocab, (steps, batch)), lib.randint(0, vocab, (steps * batch,))

    def step():
        model.zero_grad()
        criterion(model(x), y).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-0.1)

    return step


def attention_inputs(lib, batch, heads, length, dim):
    lib.manual_seed(0)
    return [lib.randn(batch, heads, length, dim, requires_grad=True) for _ in range(3)]


def sdpa_step(lib, causal):
    q, k, v = attention_inputs(lib, 8, 8, 512, 64)
    grad = lib.randn(8, 8, 512, 64)

    def step():
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        out.backward(grad)

    return step


def full_matrix_attention(lib, q, k, v):
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    return lib.softmax(scores, -1) @ v


def peak_memory_mib(lib, fused):
    q, k, v = attention_inputs(lib, 1, 8, 4096, 64)
    grad = lib.randn(1, 8, 4096, 64)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if fused:
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v)
    else:
        out = full_matrix_attention(lib, q, k, v)
    out.backward(grad)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024


def gpt_step(lib):
    if lib.__name__ == "ember":
        # The program says `import torch`; this worker process never loads
        # PyTorch, so the names can stand for Ember's modules.
        sys.modules.update({"torch": lib, "torch.nn": lib.nn, "torch.nn.functional": lib.nn.functional})
    spec = importlib.util.spec_from_file_location("nanogpt", NANOGPT)
    program = importlib.util.module_from_spec(spec)
    sys.modules["nanogpt"] = program  # its dataclass looks the module up
    spec.loader.exec_module(program)
    config = program.GPTConfig(block_size=128, vocab_size=65, n_layer=4, n_head=4, n_embd=128, dropout=0.0)
    lib.manual_seed(0)
    with contextlib.redirect_stdout(io.StringIO()):  # the program prints its parameter counts
        model = program.GPT(config)
        optimizer = model.configure_optimizers(0.1, 1e-3, (0.9, 0.99), "cpu")
    x, y = lib.randint(0, 65, (16, 128)), lib.randint(0, 65, (16, 128))

    def step():
        _, loss = model(x, y)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    return step


def worker(library, workload):
    lib = importlib.import_module(library)
    if workload in MEMORY:
        return peak_memory_mib(lib, workload == "sdpa_4096_fused")
    if workload == "lstm_lm_step":
        step = lstm_lm_step(lib)
    elif workload == "gpt_step":
        step = gpt_step(lib)
    else:
        step = sdpa_step(lib, workload.endswith("causal"))
    # A fresh process on an idle machine runs its first tenths of a second
    # slowly (steps of the MLP took 2.5 ms for 60 ms, then 1.5 ms): warm up
    # for a second of steps before timing.
    warm_until = time.perf_counter() + WARM_UP_SECONDS
    step()
    while time.perf_counter() < warm_until:
        step()
    times = []
    for _ in range(5):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def run_worker(library, workload):
    done = subprocess.run([sys.executable, __file__, "--worker", library, workload], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--worker", nargs=2)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return
    times = {(lib, w): [] for lib in LIBRARIES for w in TIMED}
    for _ in range(args.rounds):
        for workload in TIMED:
            for lib in LIBRARIES:
                times[(lib, workload)].append(run_worker(lib, workload))
    print("| Workload | Ember | PyTorch | Ratio | Target | Met? |")
    print("|---|---|---|---|---|---|")
    for workload, (title, target) in TIMED.items():
        mine = statistics.median(times[("ember", workload)])
        theirs = statistics.median(times[("torch", workload)])
        ratio = mine / theirs
        met = "" if target is None else ("yes" if ratio <= target else "no")
        target_text = "" if target is None else f"≤ {target:.1f}×"
        print(f"| {title} | {mine:.1f} ms | {theirs:.1f} ms | {ratio:.2f}× | {target_text} | {met} |")
    print()
    print("| Peak memory, SDPA forward + backward at seq 4096 | Ember | PyTorch |")
    print("|---|---|---|")
    for workload, title in zip(MEMORY, ("fused op", "full-matrix approach")):
        print(f"| {title} | {run_worker('ember', workload):.0f} MiB | {run_worker('torch', workload):.0f} MiB |")


if __name__ == "__main__":
    main()
