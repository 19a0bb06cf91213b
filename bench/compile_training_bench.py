#!/usr/bin/env python3
"""Compiled training steps beside eager, Ember and PyTorch 2.13, in alternating worker processes.

    bench/compile_training_bench.py [--rounds 3] [--repeats 15]

A step is zero_grad, forward, loss, backward and the optimizer's step; the model is compiled
(`torch.compile(model)` / `ember.compile(model)`), the optimizer runs eagerly. Workloads: the
MLP 784-512-512-10 at batch 128 with SGD and momentum, and the transformer-style block of
compile_bench.py (8x128x256) with AdamW, and a 2-layer LSTM language model (vocabulary 1000,
width 256, 64 steps of batch 32) with SGD. Prints the median milliseconds per step of each
(library, mode), the ratios the compiler's targets are set against, and Ember's peak allocated
bytes over a step, compiled and eager.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_bench import (CONFIGS, median_ms, median_of, results_of_workers,  # noqa: E402
                           print_errors, ratio, transformer_block)


STEPS = ("MLP step, SGD momentum", "block step, AdamW", "LSTM LM step, SGD")


def lstm_language_model(torch, vocab, width):
    nn = torch.nn

    class LanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, width)
            self.rnn = nn.LSTM(width, width, 2)
            self.decoder = nn.Linear(width, vocab)

        def forward(self, tokens):
            out, _ = self.rnn(self.encoder(tokens))
            return nn.functional.log_softmax(self.decoder(out).view(-1, vocab), dim=1)

    return LanguageModel()


def steps(torch):
    F = torch.nn.functional
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                              torch.nn.ReLU(), torch.nn.Linear(512, 10))
    images, labels = torch.randn(128, 784), torch.randint(0, 10, (128,))
    block = transformer_block(torch)
    tokens, target = torch.randn(8, 128, 256), torch.randn(8, 128, 256)
    vocab = 1000
    language_model = lstm_language_model(torch, vocab, 256)
    words, next_words = torch.randint(0, vocab, (64, 32)), torch.randint(0, vocab, (64 * 32,))
    return dict(zip(STEPS, (
        (mlp, torch.optim.SGD(mlp.parameters(), lr=0.01, momentum=0.9),
         lambda out: F.cross_entropy(out, labels), images),
        (block, torch.optim.AdamW(block.parameters(), lr=1e-4), lambda out: F.mse_loss(out, target), tokens),
        (language_model, torch.optim.SGD(language_model.parameters(), lr=0.1), lambda out: F.nll_loss(out, next_words),
         words))))


def worker(library, mode, repeats):
    torch = __import__(library)
    out = {}
    for name, (model, optimizer, loss_of, batch) in steps(torch).items():
        forward = torch.compile(model) if mode == "compiled" else model

        def step():
            optimizer.zero_grad()
            loss_of(forward(batch)).backward()
            optimizer.step()

        try:
            out[name] = median_ms(step, (), repeats)
            if library == "ember":
                torch.cpu.reset_peak_memory_stats()
                step()
                out[name + " peak bytes"] = torch.cpu.max_memory_allocated()
        except Exception as e:  # reported, not fatal
            out[name] = f"error: {type(e).__name__}: {e}"[:120]
    print(json.dumps(out))


def main():
    results = results_of_workers(__file__, worker, repeats=15)
    if results is None:
        return

    def cell(config, name):
        return median_of(results, config, name)

    print(f"{'step':26s} {'ember eager':>12s} {'ember comp':>12s} {'torch eager':>12s} {'torch.compile':>13s} "
          f"{'comp/t.eager':>12s} {'comp/t.comp':>11s} {'peak comp/eager':>15s}")
    for name in STEPS:
        ee, ec, te, tc = (cell(c, name) for c in CONFIGS)
        fmt = lambda v: f"{v:12.2f}" if v is not None else f"{'-':>12s}"
        pe, pc = cell(("ember", "eager"), name + " peak bytes"), cell(("ember", "compiled"), name + " peak bytes")
        print(f"{name:26s} {fmt(ee)} {fmt(ec)} {fmt(te)} {fmt(tc):>13s} {ratio(ec, te, 12)} {ratio(ec, tc, 11)} "
              f"{ratio(pc, pe, 15)}")
    print_errors(results)


if __name__ == "__main__":
    main()
