"""Measures which primitives each composite op and Python feature needs, and
writes (--write) or checks (--check) sdk/docs/primitives.md.

Everything runs on the recording device ("rec", recording_plugin.cpp), which
has the CPU plugin's kernels for the catalogue's primitives and none for its
composites: every composite runs as the core's decomposition, and the table
lists exactly the (op, dtype) kernels the dispatcher reached on the device.
The conformance kit's models run in the kit itself, in a subprocess.

    python primitives_needed.py --plugin librec.so --kit ember-conformance --check primitives.md \
        --guide writing-a-backend.md

With --guide, the check also holds the guide's summary ("need N of the
catalogue's M primitives") to the measurement.
"""

import argparse
import ctypes
import difflib
import os
import subprocess
import sys
import tempfile

import ember
import ember.nn as nn
import ember.nn.functional as F


def primitive_names():
    return sorted(op.name for op in ember._C.catalogue_ops() if not op.composite)


class Recorder:
    """The recording plugin, loaded into the core and read through ctypes."""

    def __init__(self, plugin_path):
        os.environ["EMBER_RECORDING_PRIMITIVES"] = ",".join(primitive_names())
        info = ember.load_plugin(plugin_path)
        if not info.loaded:
            raise RuntimeError(f"the recording plugin did not load: {info.error}")
        self._take = ctypes.CDLL(plugin_path).ember_recording_take
        self._take.restype = ctypes.c_char_p

    def take(self):
        """The (op, dtype) pairs reached since the last take."""
        return {tuple(line.split()) for line in self._take().decode().splitlines()}


# Each feature makes its inputs on the device and returns (leaves, run):
# run() computes the feature; when `leaves` is not empty, the table's last
# column lists what its gradient with respect to them adds.
def leaf(dev, *shape):
    return ember.randn(*shape).to(dev).requires_grad_()


def on_inputs(*shapes, fn):
    def make(dev):
        leaves = [leaf(dev, *shape) for shape in shapes]
        return leaves, lambda: fn(*leaves)
    return make


def classes(dev, n, c):
    return ember.tensor([i % c for i in range(n)]).to(dev)


def cross_entropy(dev):
    logits = leaf(dev, 4, 5)
    target = classes(dev, 4, 5)
    return [logits], lambda: F.cross_entropy(logits, target)


def boolean_mask_read(dev):
    x = leaf(dev, 4, 5)
    mask = (ember.arange(20).reshape(4, 5) % 3 == 0).to(dev)
    return [x], lambda: x[mask]


def boolean_mask_write(dev):
    x = ember.randn(4, 5).to(dev)
    mask = (ember.arange(20).reshape(4, 5) % 3 == 0).to(dev)

    def run():
        x[mask] = 0.0
        return x
    return [], run


def embedding(dev):
    weight = leaf(dev, 10, 3)
    index = classes(dev, 6, 10)
    return [weight], lambda: F.embedding(index, weight)


def dropout(dev):
    x = leaf(dev, 4, 5)
    return [x], lambda: F.dropout(x, 0.5, training=True)


def module(factory):
    def make(dev):
        return [], lambda: factory(dev)
    return make


def optimizer_step(kind):
    def make(dev):
        params = [leaf(dev, 4, 3), leaf(dev, 4)]
        for p in params:
            p.grad = ember.randn(*p.shape).to(dev)
        opt = kind(params)
        return [], opt.step
    return make


FEATURES = [
    # The catalogue's composites (sdk/docs/ops.md), as their decompositions.
    ("softmax", on_inputs((4, 5), fn=lambda x: F.softmax(x, dim=1))),
    ("log_softmax", on_inputs((4, 5), fn=lambda x: F.log_softmax(x, dim=1))),
    ("conv2d", on_inputs((2, 3, 6, 6), (4, 3, 3, 3), (4,), fn=lambda x, w, b: F.conv2d(x, w, b, padding=1))),
    ("max_pool2d", on_inputs((2, 3, 6, 6), fn=lambda x: F.max_pool2d(x, 2))),
    ("avg_pool2d", on_inputs((2, 3, 6, 6), fn=lambda x: F.avg_pool2d(x, 2))),
    ("layer_norm", on_inputs((4, 6), (6,), (6,), fn=lambda x, w, b: F.layer_norm(x, (6,), w, b))),
    ("cross_entropy", cross_entropy),
    ("scaled_dot_product_attention",
     on_inputs((2, 2, 5, 4), (2, 2, 6, 4), (2, 2, 6, 4),
               fn=lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True))),
    # Python features.
    ("F.linear", on_inputs((4, 3), (5, 3), (5,), fn=F.linear)),
    ("F.relu", on_inputs((4, 5), fn=F.relu)),
    ("F.gelu", on_inputs((4, 5), fn=F.gelu)),
    ("F.mse_loss", on_inputs((4, 5), (4, 5), fn=F.mse_loss)),
    ("F.embedding", embedding),
    ("F.dropout", dropout),
    ("x[mask]", boolean_mask_read),
    ("x[mask] = v", boolean_mask_write),
    ("topk", on_inputs((4, 6), fn=lambda x: ember.topk(x, 2, dim=1).values)),
    ("rand", module(lambda dev: ember.rand(4, 5, device=dev))),
    ("randn", module(lambda dev: ember.randn(4, 5, device=dev))),
    ("nn.Linear(device=...)", module(lambda dev: nn.Linear(3, 4, device=dev))),
    ("nn.Conv2d(device=...)", module(lambda dev: nn.Conv2d(3, 4, 3, device=dev))),
    ("optim.SGD step", optimizer_step(lambda params: ember.optim.SGD(params, lr=0.1, momentum=0.9))),
    ("optim.Adam step", optimizer_step(lambda params: ember.optim.Adam(params, lr=0.1))),
]

KIT_MODELS = ["e2e/mlp", "e2e/cnn"]


def measure_feature(recorder, make):
    ember.manual_seed(0)
    leaves, run = make("rec")
    recorder.take()
    out = run()
    forward = recorder.take()
    if not leaves:
        return forward, None
    grad_output = ember.ones(*out.shape).to("rec")
    recorder.take()
    ember.autograd.grad(out, leaves, grad_output)
    return forward, recorder.take() - forward


def measure_kit_model(plugin_path, kit, check_id):
    """The kit trains the model on the recording device in its own process;
    the plugin writes what the model reached to EMBER_RECORDING_LOG."""
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "reached")
        env = dict(os.environ, EMBER_RECORDING_LOG=log, EMBER_PLUGIN_PATH="")
        done = subprocess.run([kit, plugin_path, "--filter", f"^{check_id}$"], env=env,
                              capture_output=True, text=True)
        if done.returncode != 0 or f"PASS  {check_id}" not in done.stdout:
            raise RuntimeError(f"{check_id} did not pass on the recording device:\n{done.stdout}{done.stderr}")
        with open(log) as reached:
            return {tuple(line.split()) for line in reached}


def describe(pairs):
    """`op` where float32 is the only dtype reached, else `op (dtype, ...)`."""
    by_op = {}
    for op, dtype in pairs:
        by_op.setdefault(op, set()).add(dtype)
    names = []
    for op in sorted(by_op):
        dtypes = sorted(by_op[op])
        names.append(f"`{op}`" if dtypes == ["float32"] else f"`{op}` ({', '.join(dtypes)})")
    return ", ".join(names) or "none"


HEADER = """\
# Primitives each feature needs

<!-- Generated by tests/primitives/primitives_needed.py; the test
primitives_table regenerates it and fails when it differs. -->

A backend that implements the primitives of the op catalogue (`ops.md`) gets
every composite op, its gradient and the Python API through the core's
decompositions. Which primitives a given feature reaches is measured here: each
row ran in float32 on a device that has the CPU plugin's kernels for the
catalogue's primitives and none for its composites, and lists every `(op,
dtype)` kernel the dispatcher called there (a dtype other than float32 is
named). The last column lists what the gradient with respect to the
floating inputs adds; "-" means the feature has no gradient. Copies between
the host and the device (`.to()`, `.item()`) are the device table's `copy`,
not kernels, and are not listed.

"""


def generate(plugin_path, kit):
    recorder = Recorder(plugin_path)
    rows = []
    for name, make in FEATURES:
        forward, backward = measure_feature(recorder, make)
        rows.append((name, describe(forward), "-" if backward is None else describe(backward)))
    kit_union = set()
    kit_rows = []
    for check_id in KIT_MODELS:
        reached = measure_kit_model(plugin_path, kit, check_id)
        kit_union |= reached
        kit_rows.append((check_id, describe(reached)))

    lines = [HEADER]
    lines.append("## The conformance kit's models\n\n")
    lines.append("Training steps of the kit's end-to-end checks (forward, `cross_entropy`, backward, an SGD "
                 "update), everything they reach on the device:\n\n")
    lines.append("| model | primitives |\n|---|---|\n")
    lines += [f"| `{check_id}` | {needs} |\n" for check_id, needs in kit_rows]
    kit_ops = sorted({op for op, _ in kit_union})
    lines.append(f"\nBoth models together need {len(kit_ops)} primitives, the smallest set a backend must "
                 f"implement to pass them: {', '.join(f'`{op}`' for op in kit_ops)}.\n\n")
    lines.append("## Composite ops and Python features\n\n")
    lines.append("| feature | forward | gradient adds |\n|---|---|---|\n")
    lines += [f"| `{name}` | {forward} | {backward} |\n" for name, forward, backward in rows]
    summary = f"need {len(kit_ops)} of the catalogue's {len(primitive_names())} primitives"
    return "".join(lines), summary


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugin", required=True, help="the recording plugin library")
    parser.add_argument("--kit", required=True, help="the ember-conformance program")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="FILE")
    action.add_argument("--check", metavar="FILE")
    parser.add_argument("--guide", metavar="FILE", help="writing-a-backend.md, whose summary --check holds")
    args = parser.parse_args(argv)
    table, summary = generate(os.path.abspath(args.plugin), args.kit)
    if args.write:
        with open(args.write, "w") as out:
            out.write(table)
        return 0
    if args.guide:
        with open(args.guide) as guide:
            if summary not in " ".join(guide.read().split()):
                print(f"{args.guide} does not say that the kit's models {summary}")
                return 1
    with open(args.check) as committed:
        current = committed.read()
    if current == table:
        print(f"{args.check} matches what the decompositions need")
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), table.splitlines(True),
                                               args.check, "measured"))
    print(f"\n{args.check} is out of date: regenerate it with --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
