#!/usr/bin/env python3
"""Compiled functions whose sizes and integer arguments change from call to call, Ember and PyTorch 2.13,
eager and compiled, in alternating workers.

    bench/compile_dynamic_bench.py [--rounds 3] [--repeats 3]

Each workload is a sweep of calls that a compiled function meets as new sizes or integers:
- a small decoder (2 blocks, d=64, RMSNorm, rotary tables sliced by position, causal attention, a
  SwiGLU MLP) over prompts of 8, 9, ... 71 tokens, as a generation loop without a cache runs it;
- a position lookup `x * table[start:start + 16] + start` for start = 0 ... 255, as a decoder with a
  cache reads its rotary tables;
- the decoder over 4 lengths in turn, 16 times each, as bucketed batches run it.
A worker runs each sweep `--repeats` times in one process and reports the milliseconds per call of
the first sweep (compiles included) and the median of the later ones. Inference (`no_grad`).
"""
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile_bench import CONFIGS, median_of, print_errors, ratio, results_of_workers  # noqa: E402

SWEEPS = ("decoder, lengths 8..71", "positions 0..255", "decoder, 4 lengths x 16")


def decoder(torch, vocab=64, d=64, heads=4, layers=2, max_len=128):
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.n1, self.n2 = nn.RMSNorm(d), nn.RMSNorm(d)
            self.qkv, self.out = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
            self.w1, self.w3, self.w2 = (nn.Linear(d, 4 * d, bias=False), nn.Linear(d, 4 * d, bias=False),
                                         nn.Linear(4 * d, d, bias=False))

        def forward(self, x, cos, sin):
            b, t, _ = x.shape
            q, k, v = (u.view(b, t, heads, d // heads).transpose(1, 2) for u in self.qkv(self.n1(x)).chunk(3, -1))
            half = d // heads // 2
            rotate = lambda u: torch.cat((-u[..., half:], u[..., :half]), dim=-1)  # noqa: E731
            q, k = q * cos + rotate(q) * sin, k * cos + rotate(k) * sin
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.out(y.transpose(1, 2).reshape(b, t, d))
            h = self.n2(x)
            return x + self.w2(F.silu(self.w1(h)) * self.w3(h))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.head = nn.Linear(d, vocab, bias=False)
            angles = torch.outer(torch.arange(max_len).float(), torch.arange(d // heads // 2).float() / 8.0)
            angles = torch.cat((angles, angles), dim=-1)
            self.register_buffer("cos", angles.cos())
            self.register_buffer("sin", angles.sin())

        def forward(self, tokens):
            t = tokens.shape[1]
            x = self.emb(tokens)
            for block in self.blocks:
                x = block(x, self.cos[:t], self.sin[:t])
            return self.head(x)

    return Decoder()


def sweeps(torch):
    model = decoder(torch)
    tokens = torch.randint(0, 64, (2, 128))
    table = torch.randn(512, 64)
    x = torch.randn(16, 64)

    def positions(start):
        return x * table[start:start + 16] + start

    return {
        SWEEPS[0]: (model, [(tokens[:, :n],) for n in range(8, 72)]),
        SWEEPS[1]: (positions, [(s,) for s in range(256)]),
        SWEEPS[2]: (model, [(tokens[:, :n],) for _ in range(16) for n in (16, 32, 48, 64)]),
    }


def worker(library, mode, repeats):
    torch = __import__(library)
    torch.manual_seed(0)
    out = {}
    with torch.no_grad():
        for name, (fn, calls) in sweeps(torch).items():
            run = torch.compile(fn) if mode == "compiled" else fn
            try:
                per_call = []
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    for args in calls:
                        run(*args)
                    per_call.append((time.perf_counter() - t0) * 1e3 / len(calls))
                out[name + ", first"] = per_call[0]
                out[name + ", later"] = statistics.median(per_call[1:]) if len(per_call) > 1 else per_call[0]
            except Exception as e:  # reported, not fatal
                out[name + ", first"] = f"error: {type(e).__name__}: {e}"[:160]
    print(json.dumps(out))


def main():
    results = results_of_workers(__file__, worker, repeats=3)
    if results is None:
        return
    print(f"{'ms per call':34s} {'ember eager':>11s} {'ember comp':>11s} {'torch eager':>11s} {'torch.comp':>11s} "
          f"{'comp/e.eager':>12s} {'comp/t.comp':>11s}")
    for sweep in SWEEPS:
        for part in ("first", "later"):
            name = f"{sweep}, {part}"
            ee, ec, te, tc = (median_of(results, c, name) for c in CONFIGS)
            times = " ".join(f"{v:11.3f}" if v is not None else f"{'-':>11s}" for v in (ee, ec, te, tc))
            print(f"{name:34s} {times} {ratio(ec, ee, 12)} {ratio(ec, tc, 11)}")
    print_errors(results)


if __name__ == "__main__":
    main()
