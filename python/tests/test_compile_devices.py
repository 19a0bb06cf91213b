"""Compiled against eager on each device whose plugin carries a code generator: xpu through the xpu plugin's
OpenCL C generator (PoCL's CPU device in CI), cuda through the CUDA plugin's NVRTC generator where a GPU is
present. The catalogue's pointwise ops, reductions, softmax, log_softmax, layer_norm and the digits MLP's
forward, with the number of kernels each forms; the disk cache of generated binaries; and a generator that
fails, which runs the graph eagerly with its reason. A device's tests skip, saying why, where its plugin is
not built or its device is missing."""

import json
import os
import pathlib
import struct
import subprocess
import sys
import zlib

import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

from test_compile_ops import BINARY, REDUCTIONS, UNARY

BUILT_PLUGINS = pathlib.Path(ember._C.__file__).resolve().parents[2] / "plugins"

# Per device type: its plugin in the build tree; why its tests skip without
# a device; how to make a cached binary's target name another device or
# architecture (such a binary must be compiled again, never launched); and
# the option that makes its compiler fail.
GENERATORS = {
    "xpu": {
        "plugin": BUILT_PLUGINS / "xpu" / "libember_plugin_xpu.so",
        "missing": "no OpenCL device for the XPU plugin",
        "other_target": lambda target: target.replace(b"|", b"|another ", 1),
        "failing_options": ("EMBER_XPU_CODEGEN_OPTIONS", "-cl-no-such-option"),
    },
    "cuda": {
        "plugin": BUILT_PLUGINS / "cuda" / "libember_plugin_cuda.so",
        "missing": "no CUDA device on this machine",
        "other_target": lambda target: target.replace(b"sm_", b"sm_1", 1),
        "failing_options": ("EMBER_CUDA_CODEGEN_OPTIONS", "--no-such-option"),
    },
}


@pytest.fixture(scope="module", params=sorted(GENERATORS))
def on(request):
    """The device type a test runs on, with its plugin loaded and its generator available."""
    return require_generator(request.param)


def require_generator(kind):
    plugin = GENERATORS[kind]["plugin"]
    if not plugin.exists():
        pytest.skip(f"the {kind} plugin is not built ({plugin} is missing)")
    ember.load_plugin(plugin)
    if not getattr(ember, kind).is_available():
        pytest.skip(GENERATORS[kind]["missing"])
    available, reason = ember._C._codegen_available(kind)
    if not available and reason.startswith("no code generator is loaded"):
        pytest.skip(f"the {kind} plugin was built without its code generator ({reason})")
    assert available, reason
    return kind


def test_without_a_gpu_the_cuda_generator_says_why_compiled_code_runs_eagerly():
    plugin = GENERATORS["cuda"]["plugin"]
    if not plugin.exists():
        pytest.skip(f"the cuda plugin is not built ({plugin} is missing)")
    ember.load_plugin(plugin)
    if ember.cuda.is_available():
        pytest.skip("a CUDA device is present: the tests on cuda run instead")
    available, reason = ember._C._codegen_available("cuda")
    assert not available
    assert "cuda codegen: no CUDA device (" in reason or reason.startswith("no code generator is loaded"), reason


LAYOUTS = ["contiguous", "transposed", "sliced", "0-d"]


def layouts(on):
    return {
        "contiguous": (ember.rand(6, 5) + 0.5).to(on),
        "transposed": (ember.rand(5, 6) + 0.5).to(on).t(),
        "sliced": (ember.rand(6, 10) + 0.5).to(on)[:, ::2],
        "0-d": ember.tensor(0.75).to(on),
    }


def plans_of(compiled):
    return [p for v in compiled._ember_compiled.variants for p in v.graphs]


def check(fn, *args, rtol=1e-5, atol=1e-6, kernels=None):
    compiled = ember.compile(fn)
    with ember.no_grad():
        expected = fn(*args)
        got = compiled(*args)
    plans = plans_of(compiled)
    assert plans and all(not p.eager_reasons for p in plans), [p.eager_reasons for p in plans]
    if kernels is not None:
        with ember.no_grad():
            assert len(ember._C._fusion_preview(plans[0])) == kernels
    assert got.device == expected.device and got.device.type in GENERATORS
    assert got.dtype == expected.dtype and tuple(got.shape) == tuple(expected.shape)
    if expected.dtype == ember.bool:
        assert ember.equal(got.cpu(), expected.cpu())
    else:
        assert ember.allclose(got.cpu(), expected.cpu(), rtol=rtol, atol=atol, equal_nan=True), (got, expected)


@pytest.mark.parametrize("layout", ["contiguous", "sliced"])
@pytest.mark.parametrize("op", UNARY)
def test_unary(on, op, layout):
    check(getattr(ember, op), layouts(on)[layout], kernels=1)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-d"])
@pytest.mark.parametrize("op", BINARY)
def test_binary_with_broadcast(on, op, layout):
    x = layouts(on)[layout]
    fn = getattr(ember, op)
    y = (ember.rand(5 if x.dim() else 3) + 0.5).to(on)
    if op.startswith("logical"):
        check(lambda a, b: fn(a > 1.0, b > 0.9), x, y)
    else:
        check(lambda a, b: fn(a, b), x, y, kernels=1)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions(on, op, layout):
    x = layouts(on)[layout]
    fn = getattr(ember, op)
    check(lambda t: fn(t), x)
    if x.dim() == 2:
        check(lambda t: fn(t, 1, keepdim=True), x)
        check(lambda t: fn(t, 0), x)


def test_long_rows_reduce_across_the_work_group(on):
    x = ember.randn(3, 10000).to(on)
    check(lambda t: t.sum(1), x, rtol=1e-4, atol=1e-4, kernels=1)
    check(lambda t: t.amax(1) - t.amin(1), x)


def test_integer_and_conversion_ops(on):
    a = ember.arange(-7, 8).to(on)
    b = ember.tensor([3, -2, 5, 1, 4, -3, 2, 7, -1, 6, 2, 3, -5, 4, 1]).to(on)
    check(lambda a, b: ember.floor_divide(a, b) + ember.remainder(a, b) * 2, a, b)
    check(lambda a, b: (a & b) | (a ^ 3), a, b)
    check(lambda a: a.float() / 3 + a.sum(), a)
    check(lambda a: ember.where(a > 0, a, -a * 2), a)


def test_integer_division_by_zero_raises_as_eager_does(on):
    a = ember.arange(4).to(on)
    zero = ember.zeros(4, dtype=ember.int64).to(on)
    with pytest.raises(Exception, match="division by zero") as eager:
        ember.floor_divide(a, zero)
    compiled = ember.compile(lambda a, b: ember.floor_divide(a, b) + 1)
    with pytest.raises(eager.type, match="division by zero"):
        compiled(a, zero)
    assert all(not p.eager_reasons for p in plans_of(compiled))


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_reduced_floats_round_as_eager_does(on, dtype):
    x = (ember.rand(8, 33) + 0.5).to(dtype).to(on)
    check(lambda t: ember.exp(t) * 3 - t, x, rtol=1e-2, atol=1e-2)
    check(lambda t: ember.softmax(t, -1), x, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name,fn", [
    ("softmax", lambda x: ember.softmax(x, -1)),
    ("log_softmax", lambda x: ember.log_softmax(x, -1)),
    ("log_softmax_dim0", lambda x: ember.log_softmax(x, 0)),
    ("layer_norm", lambda x: F.layer_norm(x, (48,))),
    ("gelu", lambda x: F.gelu(x)),
    ("normalize", lambda x: (x - x.mean()) / x.std()),
])
def test_softmax_and_normalisations_are_one_kernel(on, name, fn):
    x = ember.randn(16, 48).to(on)
    check(fn, x, kernels=1)


def test_pointwise_chains_are_one_kernel(on):
    x, y, z = (ember.randn(4096).to(on) for _ in range(3))
    check(lambda x: ember.sin(ember.cos(x)), x, kernels=1)
    check(lambda x, y, z: x * y + z, x, y, z, kernels=1)


def test_digits_mlp_forward(on):
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))
    model.to(on)
    images = ember.rand(32, 64).to(on)
    check(lambda x: F.log_softmax(model(x), -1), images)


def test_an_lstm_compiles_through_its_recurrence_where_the_device_has_no_fused_layer(on):
    # Only the CPU plugin has lstm_layer kernels: elsewhere the layer is traced
    # step by step (Note [Fused composites in traces]), forward and backward.
    ember.manual_seed(0)
    lstm = nn.LSTM(8, 16, num_layers=2).to(on)
    x = ember.randn(6, 3, 8).to(on)
    check(lambda x: lstm(x)[0], x, rtol=1e-4, atol=1e-5)
    step = ember.compile(lambda x: lstm(x)[0].pow(2).sum())
    grads = []
    for forward in (lambda x: lstm(x)[0].pow(2).sum(), step):
        lstm.zero_grad()
        forward(x).backward()
        grads.append([p.grad.cpu() for p in lstm.parameters()])
    for e, g in zip(*grads):
        assert ember.allclose(g, e, rtol=1e-4, atol=1e-5), (g - e).abs().max().item()
    training = [v.training for v in step._ember_compiled.variants if v.training is not None]
    ops = [n["op"] for plan in (training[0].forward, training[0].backward) for n in plan.graph["nodes"]]
    assert "sigmoid" in ops and not any(op.startswith("lstm_layer") for op in ops)


def test_deterministic_option_is_bitwise_stable(on):
    x = ember.randn(1 << 14).to(on)
    f = ember.compile(lambda x: (x * x).sum() + x.amax(), options={"deterministic": True})
    with ember.no_grad():
        first = f(x).cpu()
        for _ in range(3):
            assert ember.equal(f(x).cpu(), first)


_PROGRAM = """
import json, sys, ember
kind, plugin = sys.argv[1:]
ember.load_plugin(plugin)
f = ember.compile(lambda x: ember.softmax(ember.sin(x) * 2, -1))
with ember.no_grad():
    y = f(ember.arange(64.0).reshape(4, 16).to(kind))
plans = [p for v in f._ember_compiled.variants for p in v.graphs]
print(json.dumps({"stats": ember._C._codegen_stats(), "value": y.cpu()[1, 5].item(),
                  "reasons": [r for p in plans for r in p.eager_reasons]}))
"""


def _run_program(on, cache_dir, **env):
    environment = dict(os.environ, EMBER_CACHE_DIR=str(cache_dir), **env)
    result = subprocess.run([sys.executable, "-c", _PROGRAM, on, str(GENERATORS[on]["plugin"])], capture_output=True,
                            text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _entry(cache_dir):
    entries = list((cache_dir / "kernels").rglob("*.bin"))
    assert len(entries) == 1
    return entries[0]


def _write_entry(path, blob):
    import hashlib
    path.write_bytes(b"EMBKCE1\n" + hashlib.sha256(blob).hexdigest().encode() + b"\n" + blob)


def _blob_of(path):
    data = path.read_bytes()
    assert data.startswith(b"EMBKCE1\n")
    return data[8 + 64 + 1:]


def _reencode(blob, change_target):
    """A generator's blob (Note [Kernel blobs] in sdk/kernel_ir) with each binary's target changed,
    checksum renewed."""
    at = 8 + 8
    texts = []

    def text():
        nonlocal at
        (n,) = struct.unpack_from("<Q", blob, at)
        at += 8
        at += n
        return blob[at - n:at]

    ir = text()
    (count,) = struct.unpack_from("<Q", blob, at)
    at += 8
    for _ in range(count):
        texts.append((change_target(text()), text()))
    out = blob[:16] + struct.pack("<Q", len(ir)) + ir + struct.pack("<Q", count)
    for target, binary in texts:
        out += struct.pack("<Q", len(target)) + target + struct.pack("<Q", len(binary)) + binary
    return out + struct.pack("<Q", zlib.crc32(out))


def test_binaries_are_cached_and_a_bad_entry_is_built_again_never_launched(on, tmp_path):
    cache = tmp_path / "cache"
    first = _run_program(on, cache)
    assert first["stats"]["compiles"] == 1 and first["stats"]["disk_hits"] == 0 and not first["reasons"]
    warm = _run_program(on, cache)
    assert warm["stats"]["compiles"] == 0 and warm["stats"]["disk_hits"] == 1 and warm["value"] == first["value"]
    entry = _entry(cache)
    blob = _blob_of(entry)
    # A binary with a flipped byte, under a valid cache entry.
    damaged = bytearray(blob)
    damaged[len(damaged) - 100] ^= 0x10
    _write_entry(entry, bytes(damaged))
    again = _run_program(on, cache)
    assert again["stats"]["compiles"] == 1 and again["stats"]["disk_hits"] == 0
    assert again["value"] == first["value"]
    # A binary built for another device, driver or architecture.
    _write_entry(entry, _reencode(_blob_of(entry), GENERATORS[on]["other_target"]))
    other = _run_program(on, cache)
    assert other["stats"]["compiles"] == 1 and other["stats"]["disk_hits"] == 0
    assert other["value"] == first["value"]
    assert _run_program(on, cache)["stats"]["disk_hits"] == 1


def test_a_failing_generator_runs_the_graph_eagerly_with_its_reason(on, tmp_path):
    variable, option = GENERATORS[on]["failing_options"]
    out = _run_program(on, tmp_path / "cache", **{variable: option})
    assert out["stats"]["compiles"] == 0 and out["stats"]["failures"] >= 1, out
    assert out["reasons"] and option in out["reasons"][0], out["reasons"]
    assert out["value"] == _run_program(on, tmp_path / "other")["value"]


def test_float32_pointwise_kernels_on_xpu_compute_eight_neighbours_at_a_time(tmp_path):
    """Note [Vector pointwise kernels]: rows of 37 give vectors and single
    points in each row; a column of y repeats along the row; NaN lanes
    keep maximum's and minimum's rules."""
    on = require_generator("xpu")
    x = (ember.rand(3, 37) * 4 - 2).to(on)
    y = (ember.rand(3, 1) * 4 - 2).to(on)
    x[0, 3] = float("nan")
    y[1, 0] = float("nan")
    check(lambda a: ember.sin(ember.cos(a)), x, kernels=1)
    check(lambda a, b: ember.maximum(a, b) * 3 + ember.minimum(a, b) / 2 - b, x, y, kernels=1)
    check(lambda a: ember.sigmoid(a) + ember.rsqrt(a * a + 1) - 0.5, x, kernels=1)
    program = f"""
import ember
ember.load_plugin({str(GENERATORS["xpu"]["plugin"])!r})
x = ember.rand(4, 40).to("xpu")
with ember.no_grad():
    ember.compile(lambda a: ember.sin(ember.cos(a)))(x)
    ember.compile(lambda a: a * 3 + 1)(x.to(ember.int32))
    ember.compile(lambda a: ember.sin(a) + 1)(x[:, ::2])
print("compiled and ran", flush=True)
"""
    env = dict(os.environ, EMBER_TRACE=str(tmp_path), EMBER_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-X", "faulthandler", "-c", program], capture_output=True, text=True,
                            env=env, timeout=300)
    # stdout tells a crash while compiling from one at the process's exit.
    assert result.returncode == 0, f"stdout: {result.stdout!r}\nstderr: {result.stderr}"
    events = [json.loads(line) for trace in tmp_path.glob("ember_trace_*.jsonl")
              for line in trace.read_text().splitlines()]
    sources = [e["data"]["source"] for e in events if e["event"] == "codegen" and "source" in e["data"]]
    assert len(sources) == 3, [e["event"] for e in events]
    vectorised = ["vload8(" in source for source in sources]
    assert vectorised == [True, False, False], sources
