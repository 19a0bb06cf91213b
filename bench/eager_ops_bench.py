#!/usr/bin/env python3
"""Every eager op family of the CPU plugin beside PyTorch 2.13, in alternating worker processes.

    PYTHONPATH=python:build/python python3 bench/eager_ops_bench.py [--rounds 5] [--filter REGEX] [--quick]

Each round starts one worker process per library (this script with
--worker), Ember and PyTorch in turn, the first of the two swapping every
round, so drift on a shared machine hits both alike. A worker builds every
workload with `import <library> as torch` (the workloads are written once,
against PyTorch's API), times each call as the median of --repeats timing
runs, and prints seconds per call as JSON. A figure is the median over rounds.

The table gives both times, their ratio (Ember / PyTorch time: below 1 is
Ember faster) and, for workloads that stream more than the last-level cache
from memory, the bandwidth each reaches as a fraction of the machine's STREAM
figure: the best of PyTorch's `torch.add(a, b, out=c)` over 64M float32
(three arrays counted, as STREAM counts them) taken in the same worker runs.
It ends with the geometric mean of the ratios over every workload and per
family.
"""

import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

LIBRARIES = ("ember", "torch")
TITLES = {"ember": "Ember", "torch": "PyTorch"}
BIG = 1 << 24  # 16M elements: 64 MiB of float32, more than the last-level caches of the project's machines
SMALL = 1 << 16  # 64K elements: resident in L2
MID = 1 << 18  # 256K elements: 1 MiB of float32, resident in the L2s of two cores
STREAM_SIZE = 1 << 26


class Workload:
    """A named step to time: `build(torch)` returns the callable; `moved`
    is the bytes it must move to or from memory (STREAM counting), given
    only where the op is bandwidth-bound and larger than the caches."""

    def __init__(self, family, name, build, moved=None):
        self.family, self.name, self.build, self.moved = family, name, build, moved


def floats(n, dtype="float32"):
    return n * {"float32": 4, "float64": 8, "bfloat16": 2, "float16": 2, "int64": 8}[dtype]


def randn(torch, *shape, dtype="float32"):
    return torch.randn(*shape).to(getattr(torch, dtype))


def unary(name, n=BIG, dtype="float32", positive=False):
    def build(torch):
        x = randn(torch, n, dtype=dtype)
        if positive:
            x = x.abs() + 0.5
        fn = getattr(torch, name)
        return lambda: fn(x)
    big = n >= BIG
    return Workload("unary", f"{name} {n // 1024}K {dtype}", build, floats(2 * n, dtype) if big else None)


def binary(title, fn, n=BIG, dtype="float32", inputs=2):
    def build(torch):
        args = [randn(torch, n, dtype=dtype).abs() + 0.5 for _ in range(inputs)]
        return lambda: fn(torch, *args)
    return Workload("binary", f"{title} {n // 1024}K {dtype}", build,
                    floats((inputs + 1) * n, dtype) if n >= BIG else None)


def gelu(approximate, n=BIG, backward=False):
    def build(torch):
        x = torch.randn(n, requires_grad=backward)
        F = torch.nn.functional
        if backward:
            g = torch.randn(n)
            return lambda: F.gelu(x, approximate=approximate).backward(g)
        return lambda: F.gelu(x, approximate=approximate)
    title = f"gelu({approximate}) {n // 1024}K" + (" fwd+bwd" if backward else "")
    return Workload("composite", title, build, None if backward else floats(2 * n))


def softmax(fn_name, rows, cols, dim, dtype="float32", backward=False):
    def build(torch):
        x = randn(torch, rows, cols, dtype=dtype)
        fn = getattr(torch, fn_name)
        if backward:
            x.requires_grad_(True)
            g = randn(torch, rows, cols, dtype=dtype)
            return lambda: fn(x, dim=dim).backward(g)
        return lambda: fn(x, dim=dim)
    big = rows * cols >= BIG and not backward
    return Workload("softmax", f"{fn_name} {rows}x{cols} dim={dim} {dtype}" + (" fwd+bwd" if backward else ""),
                    build, floats(2 * rows * cols, dtype) if big else None)


def layer_norm(rows, cols, dtype="float32", backward=False):
    def build(torch):
        norm = torch.nn.LayerNorm(cols).to(getattr(torch, dtype))
        x = randn(torch, rows, cols, dtype=dtype)
        if backward:
            x.requires_grad_(True)
            g = randn(torch, rows, cols, dtype=dtype)
            return lambda: norm(x).backward(g)
        return lambda: norm(x)
    big = rows * cols >= BIG and not backward
    return Workload("layer_norm", f"LayerNorm({cols}) {rows} rows {dtype}" + (" fwd+bwd" if backward else ""),
                    build, floats(2 * rows * cols, dtype) if big else None)


def cross_entropy(rows, classes, backward=False):
    def build(torch):
        logits = torch.randn(rows, classes, requires_grad=backward)
        target = torch.randint(0, classes, (rows,))
        F = torch.nn.functional
        if backward:
            return lambda: F.cross_entropy(logits, target).backward()
        return lambda: F.cross_entropy(logits, target)
    big = rows * classes >= BIG and not backward
    return Workload("cross_entropy", f"cross_entropy {rows}x{classes}" + (" fwd+bwd" if backward else ""),
                    build, floats(rows * classes) if big else None)


def reduction(title, shape, fn, dtype="float32"):
    def build(torch):
        x = randn(torch, *shape, dtype=dtype) if dtype != "int64" else torch.randint(0, 100, shape)
        return lambda: fn(torch, x)
    n = math.prod(shape)
    return Workload("reduce", f"{title} {'x'.join(map(str, shape))} {dtype}", build,
                    floats(n, dtype) if n >= BIG else None)


def copy(title, shape, fn, dtype="float32", moved=True):
    def build(torch):
        x = randn(torch, *shape, dtype=dtype)
        return lambda: fn(torch, x)
    n = math.prod(shape)
    return Workload("copy", f"{title} {'x'.join(map(str, shape))} {dtype}", build,
                    floats(2 * n, dtype) if moved and n >= BIG else None)


def permuted(title, shape, order, fn, inputs=1, moved=True):
    """fn(torch, *xs) over inputs that are permute(order) of contiguous
    tensors of `shape`: the layouts a transpose, an attention head split or
    a channels-last image give to the elementwise ops that follow them."""
    def build(torch):
        xs = [torch.randn(*shape).abs().add(0.5).permute(*order) for _ in range(inputs)]
        return lambda: fn(torch, *xs)
    n = math.prod(shape)
    return Workload("layout", f"{title} {'x'.join(map(str, shape))}.permute{order} float32", build,
                    floats((inputs + 1) * n) if moved and n >= BIG else None)


def crossed(title, rows, cols, fn):
    """fn(torch, x, y) with x a transposed [cols, rows] tensor and y a
    contiguous [rows, cols] one: layouts that cross."""
    def build(torch):
        x = torch.randn(cols, rows).t()
        y = torch.randn(rows, cols)
        return lambda: fn(torch, x, y)
    return Workload("layout", f"{title} {rows}x{cols} float32", build)


def matmul(m, k, n):
    def build(torch):
        a, b = torch.randn(m, k), torch.randn(k, n)
        return lambda: torch.mm(a, b)
    return Workload("matmul", f"mm {m}x{k}x{n}", build)


def conv(batch, c_in, c_out, size, backward=False):
    def build(torch):
        layer = torch.nn.Conv2d(c_in, c_out, 3, padding=1)
        x = torch.randn(batch, c_in, size, size, requires_grad=backward)
        if backward:
            g = torch.randn(batch, c_out, size, size)
            return lambda: layer(x).backward(g)
        return lambda: layer(x)
    return Workload("conv", f"conv3x3 {batch}x{c_in}x{size}x{size} -> {c_out}" + (" fwd+bwd" if backward else ""),
                    build)


def conv_composite(title, make_op, input_shape):
    """Forward and backward, under a dense upstream gradient, of a convolution
    Ember builds from views, matmul and index_add (nn/functional_conv.py)."""
    def build(torch):
        op = make_op(torch)
        x = torch.randn(*input_shape, requires_grad=True)
        with torch.no_grad():
            g = torch.randn(*op(x).shape)
        return lambda: op(x).backward(g)
    return Workload("conv", f"{title} {'x'.join(map(str, input_shape))} fwd+bwd", build)


def max_pool(batch, channels, size):
    def build(torch):
        x = torch.randn(batch, channels, size, size)
        return lambda: torch.nn.functional.max_pool2d(x, 2)
    return Workload("conv", f"max_pool2d 2x2 {batch}x{channels}x{size}x{size}", build)


# 1M elements (4 MiB of float32): the ops below, over a vector of this size,
# a 1024x1024 matrix or a 16x32x32x32 batch of images.
MILLION = 1 << 20


def over_vectors(family, title, fn, positive=False):
    """fn(torch, x, y, z) over three 1M-element float32 vectors (positive ones where asked)."""
    def build(torch):
        x, y, z = (randn(torch, MILLION) for _ in range(3))
        if positive:
            x, y, z = (t.abs() + 0.5 for t in (x, y, z))
        return lambda: fn(torch, x, y, z)
    return Workload(family, f"{title} 1M float32", build)


def over_matrix(family, title, fn):
    """fn(torch, m, index) over a 1024x1024 float32 matrix and a [1024, 64] index into its rows."""
    def build(torch):
        m, index = torch.randn(1024, 1024), torch.randint(0, 1024, (1024, 64))
        return lambda: fn(torch, m, index)
    return Workload(family, f"{title} 1024x1024", build)


def over_images(family, title, fn):
    """fn(torch, images, F) over a 16x32x32x32 float32 batch."""
    def build(torch):
        images = torch.randn(16, 32, 32, 32)
        return lambda: fn(torch, images, torch.nn.functional)
    return Workload(family, f"{title} 16x32x32x32", build)


def more_ops():
    """Ops beyond the primitives' own families: composites and activations users call directly."""
    return [
        over_vectors("math", "lerp(x, y, 0.3)", lambda torch, x, y, z: torch.lerp(x, y, 0.3)),
        over_vectors("math", "x.lerp_(y, 0.001)", lambda torch, x, y, z: x.lerp_(y, 0.001)),
        over_vectors("math", "lerp(x, y, z)", lambda torch, x, y, z: torch.lerp(x, y, z)),
        over_vectors("math", "addcmul(x, y, z, value=0.5)", lambda torch, x, y, z: torch.addcmul(x, y, z, value=0.5)),
        over_vectors("math", "addcdiv(x, y, z, value=0.5)", lambda torch, x, y, z: torch.addcdiv(x, y, z, value=0.5),
                     positive=True),
        over_vectors("math", "x ** 3", lambda torch, x, y, z: x ** 3),
        over_vectors("math", "x ** -0.5", lambda torch, x, y, z: x ** -0.5, positive=True),
        over_vectors("math", "remainder(x, 0.7)", lambda torch, x, y, z: torch.remainder(x, 0.7)),
        over_vectors("math", "fmod(x, 0.7)", lambda torch, x, y, z: torch.fmod(x, 0.7)),
        over_vectors("math", "clamp(x, -0.5, 0.5)", lambda torch, x, y, z: x.clamp(-0.5, 0.5)),
        over_vectors("math", "exp2", lambda torch, x, y, z: torch.exp2(x)),
        over_vectors("math", "where(x > 0, x, y)", lambda torch, x, y, z: torch.where(x > 0, x, y)),
        over_vectors("math", "masked_fill(x > 0, 0)", lambda torch, x, y, z: x.masked_fill(x > 0, 0.0)),
        *(over_vectors("activation", name, lambda torch, x, y, z, name=name: getattr(torch.nn.functional, name)(x))
          for name in ("relu", "leaky_relu", "hardtanh", "hardswish", "elu", "softplus", "mish", "logsigmoid")),
        over_vectors("activation", "dropout(p=0.1) training", lambda torch, x, y, z: torch.nn.functional.dropout(x, 0.1)),
        over_vectors("shape", "flip", lambda torch, x, y, z: x.flip(0)),
        over_matrix("shape", "flip(1)", lambda torch, m, index: m.flip(1)),
        over_matrix("shape", "roll(3, 1)", lambda torch, m, index: m.roll(3, 1)),
        over_matrix("shape", "tril", lambda torch, m, index: m.tril()),
        over_matrix("shape", "gather(1, index)", lambda torch, m, index: m.gather(1, index)),
        over_matrix("shape", "cumsum(0)", lambda torch, m, index: m.cumsum(0)),
        over_matrix("search", "topk(10, dim=1)", lambda torch, m, index: m.topk(10, dim=1)),
        over_matrix("search", "sort(1)", lambda torch, m, index: m.sort(1)),
        over_matrix("search", "nonzero of m > 0", lambda torch, m, index: (m > 0).nonzero()),
        over_matrix("search", "unique of the index", lambda torch, m, index: index.unique()),
        over_matrix("reduce", "norm(dim=1)", lambda torch, m, index: m.norm(dim=1)),
        over_matrix("reduce", "std(1)", lambda torch, m, index: m.std(1)),
        over_matrix("reduce", "logsumexp(1)", lambda torch, m, index: torch.logsumexp(m, 1)),
        over_images("norm", "batch_norm, eval", lambda torch, x, F: F.batch_norm(x, torch.zeros(32), torch.ones(32))),
        over_images("norm", "group_norm(8)", lambda torch, x, F: F.group_norm(x, 8)),
        over_images("resample", "pad 1", lambda torch, x, F: F.pad(x, (1, 1, 1, 1))),
        over_images("resample", "adaptive_avg_pool2d(1)", lambda torch, x, F: F.adaptive_avg_pool2d(x, 1)),
        over_images("resample", "interpolate x2 nearest", lambda torch, x, F: F.interpolate(x, scale_factor=2)),
        over_images("resample", "interpolate x2 bilinear",
                    lambda torch, x, F: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)),
    ]


def tiny(title, build):
    return Workload("latency", title, build)


def training_step(torch, model, optimizer, inputs, targets):
    def step():
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
    return step


def mlp_step(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    inputs, targets = torch.randn(128, 784), torch.randint(0, 10, (128,))
    return training_step(torch, model, torch.optim.SGD(model.parameters(), lr=0.01), inputs, targets)


def cnn_step(torch, size, batch):
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * (size // 4) ** 2, 10))
    inputs, targets = torch.randn(batch, 3, size, size), torch.randint(0, 10, (batch,))
    return training_step(torch, model, torch.optim.Adam(model.parameters(), lr=1e-3), inputs, targets)


def transformer_step(torch):
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        def __init__(self, d=256, heads=4):
            super().__init__()
            self.heads = heads
            self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
            self.head = nn.Linear(d, 10)

        def forward(self, h):
            b, t, d = h.shape
            q, k, v = self.qkv(self.norm1(h)).chunk(3, dim=-1)
            q, k, v = (u.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for u in (q, k, v))
            att = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
            h = h + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
            h = h + self.fc2(F.gelu(self.fc1(self.norm2(h))))
            return self.head(h.mean(dim=1))

    model = Block()
    inputs, targets = torch.randn(8, 128, 256), torch.randint(0, 10, (8,))
    return training_step(torch, model, torch.optim.AdamW(model.parameters(), lr=1e-3), inputs, targets)


def small_autograd(torch):
    a = torch.randn(8, 8, requires_grad=True)
    b = torch.randn(8, 8, requires_grad=True)
    return lambda: (a * b).sum().backward()


def embedding_step(torch):
    table = torch.randn(1000, 256, requires_grad=True)
    tokens = torch.randint(0, 1000, (64, 32))
    grad = torch.randn(64, 32, 256)
    return lambda: torch.nn.functional.embedding(tokens, table).backward(grad)


def nll_step(torch):
    log_probs = torch.randn(2048, 1000).log_softmax(1).requires_grad_()
    target = torch.randint(0, 1000, (2048,))
    return lambda: torch.nn.functional.nll_loss(log_probs, target).backward()


def index_select_rows(torch):
    table, rows = torch.randn(1000, 256), torch.randint(0, 1000, (2048,))
    return lambda: table.index_select(0, rows)


def workloads():
    F = lambda torch: torch.nn.functional  # noqa: E731
    rows = [
        *(unary(name) for name in ("exp", "sin", "cos", "tan", "tanh", "erf", "expm1", "sigmoid", "sqrt",
                                   "reciprocal", "abs", "neg")),
        *(unary(name, positive=True) for name in ("log", "log1p", "rsqrt")),
        *(unary(name, n=SMALL) for name in ("exp", "tanh", "erf")),
        unary("tanh", dtype="bfloat16"), unary("exp", dtype="bfloat16"),
        unary("tanh", n=BIG // 4, dtype="float64"), unary("erf", n=BIG // 4, dtype="float64"),
        binary("add", lambda torch, x, y: x + y),
        binary("mul", lambda torch, x, y: x * y),
        binary("div", lambda torch, x, y: x / y),
        binary("x*y + z", lambda torch, x, y, z: x * y + z, inputs=3),
        binary("pow(x, y)", lambda torch, x, y: torch.pow(x, y)),
        binary("x ** 2", lambda torch, x: x ** 2, inputs=1),
        binary("x ** 0.5", lambda torch, x: x ** 0.5, inputs=1),
        binary("maximum", lambda torch, x, y: torch.maximum(x, y)),
        binary("add", lambda torch, x, y: x + y, n=SMALL),
        binary("add", lambda torch, x, y: x + y, dtype="bfloat16"),
        binary("add", lambda torch, x, y: x + y, n=SMALL, dtype="bfloat16"),
        binary("add_ (in place)", lambda torch, x, y: x.add_(y), n=SMALL, dtype="bfloat16"),
        binary("x * 0.5", lambda torch, x: x * 0.5, n=SMALL, dtype="bfloat16", inputs=1),
        binary("add", lambda torch, x, y: x + y, n=SMALL, dtype="float16"),
        binary("add", lambda torch, x, y: x + y, n=BIG // 2, dtype="float64"),
        Workload("binary", "add [4096, 4096] + [4096] (broadcast)",
                 lambda torch: (lambda x, y: lambda: x + y)(torch.randn(4096, 4096), torch.randn(4096)),
                 floats(2 * BIG)),
        binary("add", lambda torch, x, y: x + y, n=MID),
        binary("add_ (in place)", lambda torch, x, y: x.add_(y), n=MID),
        *(Workload("binary", f"add [2048, {n}] + [{n}] (a bias on every row)",
                   lambda torch, n=n: (lambda x, y: lambda: x + y)(torch.randn(2048, n), torch.randn(n)))
          for n in (128, 384)),
        Workload("binary", "mul [64, 32, 8, 8] * [32, 1, 1] (per channel)",
                 lambda torch: (lambda x, y: lambda: x * y)(torch.randn(64, 32, 8, 8), torch.randn(32, 1, 1))),
        Workload("binary", "add int64 8M",
                 lambda torch: (lambda x: lambda: x + x)(torch.randint(0, 100, (BIG // 2,))), floats(BIG * 3 // 2, "int64")),
        Workload("index", "embedding 1000x256, 64x32 tokens fwd+bwd", embedding_step),
        Workload("index", "nll_loss 2048x1000 fwd+bwd", nll_step),
        Workload("index", "index_select 2048 rows of 1000x256", index_select_rows),
        gelu("none"), gelu("tanh"), gelu("none", backward=True), gelu("none", n=SMALL),
        Workload("composite", "silu 16384K", lambda torch: (lambda x: lambda: F(torch).silu(x))(torch.randn(BIG)),
                 floats(2 * BIG)),
        softmax("softmax", 4096, 1024, -1), softmax("softmax", 8192, 2048, -1),
        softmax("softmax", 4096, 1024, 0), softmax("softmax", 8192, 2048, 0),
        softmax("softmax", 64, 64, -1), softmax("softmax", 32768, 16, -1),
        softmax("softmax", 64, 8192, 0), softmax("softmax", 16, 1 << 20, -1),
        softmax("log_softmax", 4096, 1024, -1), softmax("log_softmax", 8192, 2048, -1),
        softmax("log_softmax", 8192, 2048, 0),
        softmax("softmax", 8192, 2048, -1, dtype="bfloat16"),
        softmax("softmax", 4096, 1024, -1, backward=True), softmax("softmax", 4096, 1024, 0, backward=True),
        softmax("log_softmax", 4096, 1024, -1, backward=True),
        softmax("softmax", 4096, 1024, -1, dtype="bfloat16", backward=True),
        Workload("softmax", "softmax [64, 1024, 256] dim=1",
                 lambda torch: (lambda x: lambda: torch.softmax(x, dim=1))(torch.randn(64, 1024, 256)),
                 floats(2 * BIG)),
        layer_norm(4096, 1024), layer_norm(16384, 1024), layer_norm(8192, 256), layer_norm(64, 256),
        layer_norm(16384, 1024, dtype="bfloat16"), layer_norm(4096, 1024, backward=True),
        layer_norm(8192, 256, backward=True), layer_norm(64, 256, backward=True),
        cross_entropy(4096, 1000), cross_entropy(16384, 1024), cross_entropy(128, 10),
        cross_entropy(4096, 1000, backward=True), cross_entropy(128, 10, backward=True),
        reduction("sum", (1 << 26,), lambda torch, x: x.sum()),
        reduction("sum dim=0", (4096, 4096), lambda torch, x: x.sum(0)),
        reduction("sum dim=1", (4096, 4096), lambda torch, x: x.sum(1)),
        reduction("sum dim=1", (64, 1024, 256), lambda torch, x: x.sum(1)),
        reduction("sum dim=(0, 2)", (64, 1024, 256), lambda torch, x: x.sum((0, 2))),
        reduction("sum dim=1", (1 << 20, 16), lambda torch, x: x.sum(1)),
        reduction("sum dim=0", (16, 1 << 20), lambda torch, x: x.sum(0)),
        reduction("mean dim=-1", (4096, 4096), lambda torch, x: x.mean(-1)),
        reduction("amax dim=-1", (4096, 4096), lambda torch, x: x.amax(-1)),
        reduction("amax dim=0", (4096, 4096), lambda torch, x: x.amax(0)),
        reduction("argmax dim=-1", (4096, 4096), lambda torch, x: x.argmax(-1)),
        reduction("sum", (BIG,), lambda torch, x: x.sum(), dtype="bfloat16"),
        reduction("sum", (BIG // 2,), lambda torch, x: x.sum(), dtype="float64"),
        reduction("sum", (BIG // 2,), lambda torch, x: x.sum(), dtype="int64"),
        reduction("sum", (4096,), lambda torch, x: x.sum()),
        reduction("var dim=-1", (4096, 4096), lambda torch, x: x.var(-1)),
        permuted("x.mul_(-1), x permuted", (4096, 4096), (1, 0), lambda torch, x: x.mul_(-1.0)),
        permuted("x.add_(y), both permuted", (4096, 4096), (1, 0), lambda torch, x, y: x.add_(y), inputs=2),
        permuted("x.mul_(-1), x permuted", (1024, 256), (1, 0), lambda torch, x: x.mul_(-1.0)),
        permuted("torch.where(x > 1, x, y), both permuted", (32, 64, 64, 16), (0, 3, 1, 2),
                 lambda torch, x, y: torch.where(x > 1, x, y), inputs=2, moved=False),
        permuted("x * y, both permuted", (4096, 4096), (1, 0), lambda torch, x, y: x * y, inputs=2),
        permuted("x.exp(), x permuted", (4096, 4096), (1, 0), lambda torch, x: x.exp()),
        crossed("x.t() * y, y contiguous", 4096, 4096, lambda torch, x, y: x * y),
        crossed("x.t() * y, y contiguous", 1024, 256, lambda torch, x, y: x * y),
        crossed("y + x.t(), y contiguous", 1024, 256, lambda torch, x, y: y + x),
        crossed("y.add_(x.t()), y contiguous", 1024, 256, lambda torch, x, y: y.add_(x)),
        permuted("y.copy_(x), both permuted", (4096, 4096), (1, 0), lambda torch, x, y: y.copy_(x), inputs=2,
                 moved=False),
        permuted("x.fill_(1), x permuted", (4096, 4096), (1, 0), lambda torch, x: x.fill_(1), moved=False),
        copy("t().contiguous()", (4096, 1024), lambda torch, x: x.t().contiguous(), moved=False),
        copy("t().contiguous()", (4096, 4096), lambda torch, x: x.t().contiguous()),
        copy("permute(0, 2, 1).contiguous()", (64, 512, 512), lambda torch, x: x.permute(0, 2, 1).contiguous()),
        copy("permute(2, 0, 1).contiguous()", (256, 256, 256), lambda torch, x: x.permute(2, 0, 1).contiguous()),
        copy("[:, ::2].contiguous()", (4096, 8192), lambda torch, x: x[:, ::2].contiguous(), moved=False),
        copy("t().contiguous()", (4096, 4096), lambda torch, x: x.t().contiguous(), dtype="bfloat16"),
        copy("t().contiguous()", (2048, 4096), lambda torch, x: x.t().contiguous(), dtype="float64"),
        copy("clone()", (BIG,), lambda torch, x: x.clone()),
        copy("to(bfloat16)", (BIG,), lambda torch, x: x.to(torch.bfloat16), moved=False),
        copy("t().contiguous()", (64, 64), lambda torch, x: x.t().contiguous()),
        matmul(1024, 1024, 1024), matmul(128, 784, 512), matmul(64, 64, 64),
        conv(32, 32, 64, 16), conv(32, 32, 64, 16, backward=True), conv(64, 3, 32, 32), max_pool(64, 32, 32),
        conv_composite("ConvTranspose2d 64->32 4x4 stride 2", lambda torch: torch.nn.ConvTranspose2d(64, 32, 4, 2, 1),
                       (8, 64, 32, 32)),
        conv_composite("Conv3d 8->16 3x3x3", lambda torch: torch.nn.Conv3d(8, 16, 3, padding=1), (2, 8, 16, 16, 16)),
        conv_composite("Conv3d 32->32 3x3x3", lambda torch: torch.nn.Conv3d(32, 32, 3, padding=1), (4, 32, 8, 16, 16)),
        conv_composite("ConvTranspose3d 16->8 4x4x4 stride 2",
                       lambda torch: torch.nn.ConvTranspose3d(16, 8, 4, 2, 1), (2, 16, 8, 8, 8)),
        conv_composite("F.unfold 3x3 pad 1", lambda torch: lambda x: torch.nn.functional.unfold(x, 3, padding=1),
                       (8, 64, 32, 32)),
        conv_composite("F.fold 3x3 pad 1 to 32x32",
                       lambda torch: lambda x: torch.nn.functional.fold(x, (32, 32), 3, padding=1), (8, 576, 1024)),
        tiny("`a + b`, 1 element", lambda torch: (lambda a: lambda: a + a)(torch.ones(1))),
        tiny("`(a*b).sum().backward()`, 8x8", small_autograd),
        tiny("softmax 16x16", lambda torch: (lambda x: lambda: torch.softmax(x, -1))(torch.randn(16, 16))),
        Workload("model", "MLP 784-512-512-10 step, batch 128, SGD", mlp_step),
        Workload("model", "CNN 3-32-64 step, 32x32, batch 32, Adam", lambda torch: cnn_step(torch, 32, 32)),
        Workload("model", "CNN 3-32-64 step, 8x8, batch 64, Adam", lambda torch: cnn_step(torch, 8, 64)),
        Workload("model", "transformer block step, 8x128x256, AdamW", transformer_step),
        *more_ops(),
    ]
    names = [w.name for w in rows]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise SystemExit(f"eager_ops_bench: duplicate workload names {sorted(duplicates)}")
    return rows


# --costs: one representative op per family, on one thread with its data in
# L2, for the grain sizes of plugins/cpu/kernels/grain.h (Note [Grain sizes]).
COST_ELEMENTS = 1 << 16
COSTS = {
    "elementwise arithmetic (add)": lambda torch, x, m: (lambda: x + x),
    "fill": lambda torch, x, m: (lambda: x.fill_(1.0)),
    "libmvec function (exp)": lambda torch, x, m: (lambda: torch.exp(x)),
    "libmvec function (tanh)": lambda torch, x, m: (lambda: torch.tanh(x)),
    "erf": lambda torch, x, m: (lambda: torch.erf(x)),
    "pow": lambda torch, x, m: (lambda: torch.pow(x, x)),
    "select (where)": lambda torch, x, m: (lambda: torch.where(x > 0.5, x, x)),
    "conversion (float32 to bfloat16)": lambda torch, x, m: (lambda: x.to(torch.bfloat16)),
    "transposing copy": lambda torch, x, m: (lambda: m.t().contiguous()),
    "sum": lambda torch, x, m: (lambda: x.sum()),
    "sum of 16-element rows": lambda torch, x, m: (lambda: x.view(-1, 16).sum(1)),
    "argmax of rows": lambda torch, x, m: (lambda: m.argmax(1)),
    "softmax of rows": lambda torch, x, m: (lambda: torch.softmax(m, -1)),
    "layer_norm of rows": lambda torch, x, m: (lambda norm: lambda: norm(m))(torch.nn.LayerNorm(256)),
    "cross_entropy of rows": lambda torch, x, m: (
        lambda target: lambda: torch.nn.functional.cross_entropy(m, target))(torch.randint(0, 256, (256,))),
    "cumsum": lambda torch, x, m: (lambda: m.cumsum(1)),
    "sort": lambda torch, x, m: (lambda: m.sort(1)),
    "uniform random numbers": lambda torch, x, m: (lambda: torch.rand(COST_ELEMENTS)),
    "normal random numbers": lambda torch, x, m: (lambda: torch.randn(COST_ELEMENTS)),
}


def print_costs(repeats):
    """Ember's nanoseconds per element for each family on one thread, less
    the cost of a call on one element, and the grain they imply."""
    import ember as torch
    torch.set_num_threads(1)
    x = torch.rand(COST_ELEMENTS) + 0.5
    m = x.view(256, 256)
    tiny = torch.rand(1)
    with torch.no_grad():
        call = seconds_per_call(lambda: tiny + tiny, repeats, 0.05)
        print("| family | ns per element, one thread | grain (elements in 6 us) |")
        print("|---|---:|---:|")
        for family, build in COSTS.items():
            ns = (seconds_per_call(build(torch, x, m), repeats, 0.05) - call) / COST_ELEMENTS * 1e9
            print(f"| {family} | {ns:.3f} | {int(6000 / ns) if ns > 0 else '-'} |")


def seconds_per_call(step, repeats, min_run_seconds):
    """Median over `repeats` timing runs of the time per call, each run long
    enough (at least `min_run_seconds`) that timer resolution and one stray
    wake-up do not matter, after two warm-up calls (allocator caches,
    primitive caches, thread pools)."""
    step()
    step()
    started = time.perf_counter()
    step()
    once = max(time.perf_counter() - started, 1e-7)
    inner = max(1, int(min_run_seconds / once))
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(inner):
            step()
        runs.append((time.perf_counter() - started) / inner)
    return statistics.median(runs)


def stream_seconds(torch, repeats):
    a, b, c = (torch.rand(STREAM_SIZE) for _ in range(3))
    return min(seconds_per_call(lambda: torch.add(a, b, out=c), 1, 0.2) for _ in range(repeats))


def run_worker(library, pattern, repeats, min_run_seconds, threads):
    torch = __import__(library)
    torch.manual_seed(0)
    if threads:
        torch.set_num_threads(threads)
    seconds = {"threads": torch.get_num_threads()}
    if library == "torch":
        seconds["stream"] = stream_seconds(torch, repeats)
    for workload in workloads():
        if pattern.search(workload.name) or pattern.search(workload.family):
            step = workload.build(torch)
            seconds[workload.name] = seconds_per_call(step, repeats, min_run_seconds)
            del step
    print(json.dumps(seconds))


def cpu_model():
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


# What makes PyTorch (ATen's kernels, MKL's GEMM) and oneDNN (PyTorch's and
# Ember's) run their AVX2 code on an AVX-512 machine.
AVX2_VARIABLES = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}


def format_time(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-6:.3g} us"


def geometric_mean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def print_report(rounds, selected, loads, isa=None):
    stream = statistics.median(r["torch"]["stream"] for r in rounds)
    stream_gbs = 3 * 4 * STREAM_SIZE / stream / 1e9
    print(f"{time.strftime('%Y-%m-%d')}, {cpu_model()}{', ' + isa if isa else ''}, {os.cpu_count()} CPUs, threads: Ember "
          f"{rounds[0]['ember']['threads']}, PyTorch {rounds[0]['torch']['threads']}; {len(rounds)} alternating "
          f"rounds; load average {loads[0]:.1f} at the start, {loads[1]:.1f} at the end")
    print(f"STREAM (PyTorch `add(a, b, out=c)`, 64M float32): {stream_gbs:.1f} GB/s\n")
    print("| family | workload | Ember | PyTorch | ratio | Ember / STREAM | PyTorch / STREAM |")
    print("|---|---|---:|---:|---:|---:|---:|")
    ratios = {}
    for workload in selected:
        ember, torch = (statistics.median(r[name][workload.name] for r in rounds) for name in LIBRARIES)
        ratio = ember / torch
        ratios.setdefault(workload.family, []).append(ratio)
        bandwidth = ["-", "-"]
        if workload.moved:
            bandwidth = [f"{workload.moved / t / 1e9 / stream_gbs:.2f}" for t in (ember, torch)]
        print(f"| {workload.family} | {workload.name} | {format_time(ember)} | {format_time(torch)} | "
              f"{ratio:.2f}x | {bandwidth[0]} | {bandwidth[1]} |")
    every = [r for family in ratios.values() for r in family]
    print(f"\nGeometric mean of Ember / PyTorch time over {len(every)} workloads: {geometric_mean(every):.2f}x")
    print("\n| family | workloads | geometric mean | worst |")
    print("|---|---:|---:|---:|")
    for family, values in ratios.items():
        print(f"| {family} | {len(values)} | {geometric_mean(values):.2f}x | {max(values):.2f}x |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="alternating Ember/PyTorch rounds")
    parser.add_argument("--repeats", type=int, default=5, help="timing runs per workload in a worker")
    parser.add_argument("--filter", default="", help="only workloads whose name or family matches this regex")
    parser.add_argument("--threads", type=int, default=0, help="threads for both libraries (default: theirs)")
    parser.add_argument("--avx2", action="store_true",
                        help="the AVX2 path on an AVX-512 machine: PyTorch, MKL and oneDNN told so by their "
                             "variables; Ember's own kernels need a build configured with "
                             "-DEMBER_CPU_MAX_ISA=x86-64-v3 on PYTHONPATH")
    parser.add_argument("--quick", action="store_true", help="one round, short runs: checks that the script works")
    parser.add_argument("--list", action="store_true", help="print the workloads and exit")
    parser.add_argument("--costs", action="store_true",
                        help="print Ember's cost per element of each family on one thread (grain sizes) and exit")
    parser.add_argument("--worker", choices=LIBRARIES, help=argparse.SUPPRESS)
    parser.add_argument("--min-run-seconds", type=float, default=0.05, help=argparse.SUPPRESS)
    args = parser.parse_args()
    pattern = re.compile(args.filter)
    if args.costs:
        print_costs(args.repeats)
        return 0
    if args.worker:
        run_worker(args.worker, pattern, args.repeats, args.min_run_seconds, args.threads)
        return 0
    selected = [w for w in workloads() if pattern.search(w.name) or pattern.search(w.family)]
    if args.list:
        for w in selected:
            print(f"{w.family}: {w.name}")
        return 0
    if not selected:
        print(f"eager_ops_bench: no workload matches {args.filter!r}", file=sys.stderr)
        return 1
    if args.quick:
        args.rounds, args.repeats, args.min_run_seconds = 1, 1, 0.01
    env = dict(os.environ, **(AVX2_VARIABLES if args.avx2 else {}))
    loads = [os.getloadavg()[0]]
    rounds = []
    for number in range(args.rounds):
        print(f"round {number + 1}/{args.rounds}", file=sys.stderr, flush=True)
        order = LIBRARIES if number % 2 == 0 else LIBRARIES[::-1]
        figures = {}
        for library in order:
            worker = subprocess.run(
                [sys.executable, __file__, "--worker", library, "--filter", args.filter, "--repeats",
                 str(args.repeats), "--min-run-seconds", str(args.min_run_seconds), "--threads", str(args.threads)],
                capture_output=True, text=True, env=env)
            if worker.returncode != 0:
                print(f"eager_ops_bench: the {TITLES[library]} worker failed:\n{worker.stderr}", file=sys.stderr)
                return 1
            figures[library] = json.loads(worker.stdout.strip().splitlines()[-1])
        rounds.append(figures)
    loads.append(os.getloadavg()[0])
    print_report(rounds, selected, loads, "AVX2 path forced" if args.avx2 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
