"""ember.compile: capture, guards and recompiles, graph breaks, stances, backends, fusion, cache keys."""

import json
import os
import warnings

import pytest

import ember
import ember.nn.functional as F
from ember import compiler


@pytest.fixture(autouse=True)
def _fresh_compiler():
    compiler.reset()
    compiler.set_stance("default")
    yield
    compiler.set_stance("default")


def variants(fn):
    return fn._ember_compiled.variants


def test_compiled_chain_matches_eager_and_is_reused():
    # Eager pads a partial vector block while the generated loop ends in
    # scalar calls, so the last elements agree within the vector maths' 4 ulp.
    x = ember.randn(257)
    f = ember.compile(lambda x: ember.sin(ember.cos(x)))
    assert ember.allclose(f(x), ember.sin(ember.cos(x)), rtol=1e-6, atol=0)
    y = ember.randn(257)
    assert ember.allclose(f(y), ember.sin(ember.cos(y)), rtol=1e-6, atol=0)
    assert len(variants(f)) == 1


def test_parameters_are_read_at_call_time_not_baked_in():
    w = ember.ones(4)
    f = ember.compile(lambda x: x * w)
    x = ember.arange(4.0)
    assert f(x).tolist() == [0.0, 1.0, 2.0, 3.0]
    w.mul_(3)
    assert f(x).tolist() == [0.0, 3.0, 6.0, 9.0]


def test_size_change_recompiles_once_with_reason_then_dynamic():
    f = ember.compile(lambda x: x * 2 + 1)
    f(ember.randn(3))
    f(ember.randn(4))
    fn = f._ember_compiled
    assert fn.recompile_reasons == ["x: size of dim 0 changed 3 -> 4"]
    out = f(ember.arange(5.0))
    assert out.tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    assert len(fn.recompile_reasons) == 1


def test_an_integer_that_changes_becomes_dynamic_after_one_recompile():
    table = ember.randn(32, 4)
    f = ember.compile(lambda x, start: x * table[start:start + x.shape[0]])
    x = ember.randn(3, 4)
    for start in range(10):
        assert ember.allclose(f(x, start), x * table[start:start + 3])
    fn = f._ember_compiled
    assert fn.recompile_reasons == ["start: value changed 0 -> 1"]
    assert len(fn.variants) == 2
    assert "start: any int (dynamic)" in compiler.explain(f, x, 11).guards
    # A bool is no integer here: it stays guarded by value.
    g = ember.compile(lambda x, flag: x + 1 if flag else x - 1)
    assert g(x, True).tolist() == (x + 1).tolist() and g(x, False).tolist() == (x - 1).tolist()
    assert g(x, True).tolist() == (x + 1).tolist()
    assert g._ember_compiled.recompile_reasons == ["flag: value changed True -> False"]
    assert len(variants(g)) == 2


def test_automatic_dynamic_follows_the_variant_of_the_same_arguments():
    f = ember.compile(lambda x, start=0: x + start)
    x = ember.randn(4)
    f(x)
    for start in range(2, 7):
        assert ember.allclose(f(x, start), x + start)
    assert f._ember_compiled.recompile_reasons == ["the arguments' structure changed", "start: value changed 2 -> 3"]


def _fill_part(x):
    out = ember.full((6, 6), 0.5)
    out[1:-1, 1:-1] = x
    return out * 2


def _write_view_of_argument(x):
    x[:, 0].mul_(3)
    return x + 1


def test_writes_into_views_run_eagerly_with_the_reason():
    """A traced write into part of a tensor reaches neither the tensor nor its other views in the graph."""
    for fn in (_fill_part, _write_view_of_argument):
        f = ember.compile(fn)
        for _ in range(2):
            x, y = ember.randn(4, 4), None
            y = x.clone()
            assert ember.equal(f(x), fn(y)) and ember.equal(x, y)
        assert "in-place write into a view of a traced tensor" in variants(f)[0].eager_reason
    with pytest.raises(RuntimeError, match="view of a traced tensor"):
        ember.compile(_fill_part, fullgraph=True)(ember.randn(4, 4))


def test_fewer_arguments_than_traced_recompile_statically():
    f = ember.compile(lambda *xs: sum(x * 2 for x in xs))
    assert f(ember.ones(2), ember.ones(2)).tolist() == [4.0, 4.0]
    assert f(ember.ones(2)).tolist() == [2.0, 2.0]
    assert f._ember_compiled.recompile_reasons == ["the arguments' structure changed"]


def test_a_dynamic_variant_traces_what_it_meets_twice_and_keeps_a_bounded_number(monkeypatch):
    """Note [Traces of dynamic variants]."""
    f = ember.compile(lambda x: ember.tanh(x) + 1)
    f(ember.randn(2, 3))
    f(ember.randn(3, 3))
    traces = variants(f)[1].by_sizes
    assert list(traces) == [(((3, 3),), ())]
    x = ember.randn(4, 3)
    assert ember.allclose(f(x), ember.tanh(x) + 1, atol=1e-6) and len(traces) == 1
    assert ember.allclose(f(x), ember.tanh(x) + 1, atol=1e-6) and len(traces) == 2
    monkeypatch.setattr(compiler.config, "traces_per_variant", 3)
    for n in range(5, 12):
        x = ember.randn(n, 3)
        for _ in range(3):
            assert ember.allclose(f(x), ember.tanh(x) + 1, atol=1e-6)
    assert list(traces) == [(((n, 3),), ()) for n in (9, 10, 11)]
    assert len(traces.met_once) <= 3
    assert len(f._ember_compiled.recompile_reasons) == 1


def _write_both(a, b):
    a.mul_(2)
    b.add_(1)
    return a + b


def test_arguments_that_share_memory_give_eager_results():
    """Note [Aliasing arguments]: which arguments share memory is guarded."""
    f = ember.compile(_write_both)
    assert f(ember.ones(4), ember.ones(4)).tolist() == [4.0] * 4
    # The same tensor twice: one input of a new variant, with the reason.
    x = ember.ones(4)
    assert f(x, x).tolist() == [6.0] * 4 and x.tolist() == [3.0] * 4
    assert f._ember_compiled.recompile_reasons[-1] == "b: memory of its own when traced, the same tensor as a now"
    assert len(variants(f)) == 2 and variants(f)[1].eager_reason is None
    y = ember.ones(4)
    assert f(y, y).tolist() == [6.0] * 4 and len(variants(f)) == 2
    # Views that lie apart are independent memory: compiled.
    z = ember.ones(6)
    assert f(z[:3], z[3:]).tolist() == [4.0] * 3 and z.tolist() == [2.0] * 3 + [2.0] * 3
    assert variants(f)[-1].eager_reason is None
    # Views that overlap run eagerly, with the reason.
    w = ember.ones(6)
    assert f(w[:3], w[2:5]).tolist() == [5.0, 4.0, 5.0] and w.tolist() == [2.0, 2.0, 3.0, 2.0, 2.0, 1.0]
    assert "different views of overlapping memory" in variants(f)[-1].eager_reason
    with pytest.raises(RuntimeError, match="overlapping memory"):
        ember.compile(_write_both, fullgraph=True)(w[:3], w[2:5])


def test_the_same_tensor_twice_gets_its_gradient_once_per_use():
    x = ember.randn(5, requires_grad=True)
    f = ember.compile(lambda a, b: (a * b + a).sum())
    f(x, x).backward()
    assert x.grad.tolist() == pytest.approx((2 * x.detach() + 1).tolist())


@pytest.mark.parametrize("change", ["dtype", "requires_grad", "grad_mode", "deterministic"])
def test_each_guard_recompiles_once(change):
    f = ember.compile(lambda x: x + 1)
    x = ember.randn(3)
    with ember.no_grad():
        f(x)
    if change == "dtype":
        with ember.no_grad():
            f(x.double())
    elif change == "requires_grad":
        with ember.no_grad():
            f(x.clone().requires_grad_())
    elif change == "deterministic":
        ember.use_deterministic_algorithms(True)
        try:
            with ember.no_grad():
                f(x)
            assert ("deterministic algorithms", True) in f._ember_compiled.variants[-1].guard.globals
        finally:
            ember.use_deterministic_algorithms(False)
    else:
        f(x)
    reasons = f._ember_compiled.recompile_reasons
    assert len(reasons) == 1
    assert {"dtype": "dtype changed", "requires_grad": "requires_grad changed", "grad_mode": "grad mode changed",
             "deterministic": "deterministic algorithms changed"}[
        change] in reasons[0]


def test_ninth_variant_warns_once_and_the_eight_keep_serving():
    f = ember.compile(lambda x, k: x + k, dynamic=False)
    x = ember.zeros(2)
    for k in range(8):
        f(x, k)
    with pytest.warns(RuntimeWarning, match="limit of 8"):
        assert f(x, 8).tolist() == [8.0, 8.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(x, 9).tolist() == [9.0, 9.0]
        assert f(x, 3).tolist() == [3.0, 3.0]
    assert len(variants(f)) == 8


def test_graph_break_on_item_gives_two_graphs_and_its_line():
    def g(x):
        if x.sum().item() > 0:  # the break
            return x * 2
        return x - 1

    x = ember.ones(5)
    report = compiler.explain(g, x)
    assert report.graph_count == 2
    assert report.graph_break_count == 1
    reason, location = report.break_reasons[0]
    assert "item()" in reason
    assert location.endswith(f"test_compile.py:{g.__code__.co_firstlineno + 1}")
    cg = ember.compile(g)
    assert cg(x).tolist() == [2.0] * 5
    assert cg(-x).tolist() == [-2.0] * 5


def test_fullgraph_turns_a_break_into_an_error_naming_the_line():
    f = ember.compile(lambda x: x * float(x.sum()), fullgraph=True)
    with pytest.raises(RuntimeError, match=r"fullgraph=True.*test_compile.py:\d+"):
        f(ember.ones(3))


def test_fail_on_recompile_stance():
    f = ember.compile(lambda x: x + 1)
    f(ember.ones(2))
    compiler.set_stance("fail_on_recompile")
    with pytest.raises(RuntimeError, match="size of dim 0 changed 2 -> 3"):
        f(ember.ones(3))
    compiler.set_stance("eager_on_recompile")
    assert f(ember.ones(3)).tolist() == [2.0] * 3
    with pytest.raises(ValueError, match="unknown stance"):
        compiler.set_stance("sometimes")


def test_exception_during_tracing_is_the_users():
    def f(x):
        raise KeyError("from user code")

    with pytest.raises(KeyError, match="from user code"):
        ember.compile(f)(ember.ones(2))


def test_gradients_of_captured_tensors_are_compiled():
    w = ember.ones(3, requires_grad=True)
    f = ember.compile(lambda x: (x * w).sum())
    loss = f(ember.arange(3.0))
    assert loss.grad_fn.name() == "CompiledFunctionBackward"
    loss.backward()
    assert w.grad.tolist() == [0.0, 1.0, 2.0]
    report = compiler.explain(f, ember.arange(3.0))
    assert report.eager_reasons == []


def test_custom_backend_receives_a_readable_graph():
    seen = {}

    def backend(gm, example_inputs):
        seen["code"] = gm.code
        seen["ops"] = [n.target for n in gm.graph if n.op == "call_function"]
        seen["inputs"] = len(example_inputs)
        return gm.forward

    f = ember.compile(lambda x, y: ember.relu(x @ y), backend=backend)
    x, y = ember.randn(2, 3), ember.randn(3, 4)
    assert ember.allclose(f(x, y), ember.relu(x @ y))
    assert "mm(" in seen["code"] and "def forward(" in seen["code"]
    assert "mm" in seen["ops"]
    assert seen["inputs"] >= 2


def test_compiled_module_keeps_parameters_state_dict_modes_and_hooks():
    model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    compiled = ember.compile(model)
    x = ember.randn(3, 4)
    calls = []
    model.register_forward_hook(lambda m, args, out: calls.append(out.shape))
    with ember.no_grad():
        assert ember.allclose(compiled(x), model(x))
    assert calls and tuple(calls[0]) == (3, 2)
    assert list(compiled.state_dict()) == list(model.state_dict())
    assert len(list(compiled.parameters())) == 4
    compiled.eval()
    assert not model.training
    with ember.no_grad():
        compiled(x)
    assert any("training flag" in r for r in compiled.forward.recompile_reasons)


def test_common_subexpressions_are_computed_once():
    with ember.no_grad():
        plan = _plan(lambda x: (x - x.mean()) / x.std(), ember.randn(8, 8))
    assert [n["op"] for n in plan.graph["nodes"]].count("mean") == 1


def test_list_backends_and_unknown_backend():
    assert "ember" in compiler.list_backends()
    with pytest.raises(ValueError, match="unknown backend"):
        ember.compile(lambda x: x, backend="nope")


def _plan(fn, *args):
    c = ember.compile(fn)
    c(*args)
    return c._ember_compiled.variants[0].graphs[0]


@pytest.mark.parametrize("name,fn,kernels", [
    ("sin_cos", lambda x: ember.sin(ember.cos(x)), 1),
    ("x_y_z", lambda x: x * x + x, 1),
    # With a pointwise prologue the fused composites decompose, and the prologue, the reductions
    # and the result are one kernel (Note [Fused composites in traces]).
    ("softmax", lambda x: ember.softmax(x * 0.5, -1), 1),
    ("log_softmax", lambda x: ember.log_softmax(x * 0.5, -1), 1),
    ("layer_norm", lambda x: F.layer_norm(x + 1, (32,)), 1),
    ("normalize", lambda x: (x - x.mean()) / x.std(), 1),
])
def test_fusion_forms_few_kernels_without_intermediates(name, fn, kernels):
    x = ember.randn(16, 32)
    with ember.no_grad():
        ekir = [json.loads(k) for k in ember._C._fusion_preview(_plan(fn, x))]
    assert len(ekir) <= kernels, name
    # No intermediate buffer: the kernel reads x and writes the result only.
    assert [b["role"] for b in ekir[0]["buffers"]] == ["input", "output"]
    assert ekir[0]["ekir"] == "1.0"


def test_a_fused_composite_on_an_input_stays_the_backends_kernel():
    x = ember.randn(16, 32)
    for fn in (lambda x: ember.softmax(x, -1), lambda x: ember.log_softmax(x, 0),
               lambda x: F.layer_norm(x, (32,))):
        with ember.no_grad():
            plan = _plan(fn, x)
            assert ember._C._fusion_preview(plan) == []
            assert ember.allclose(ember.compile(fn)(x), fn(x), rtol=1e-6, atol=1e-7)
        assert [n["op"] for n in plan.graph["nodes"]] in (["softmax"], ["log_softmax"], ["layer_norm"])


def test_fusion_folds_broadcasts_into_strides():
    with ember.no_grad():
        ekir = [json.loads(k) for k in
                ember._C._fusion_preview(_plan(lambda x, b: x * b + 1.0, ember.randn(4, 8), ember.randn(8)))]
    assert len(ekir) == 1
    loads = [i for loop in ekir[0]["loops"] for i in loop["body"] if i["op"] == "load"]
    assert sorted(tuple(l["strides"]) for l in loads) == [(0, 1), (8, 1)]
    consts = [i for loop in ekir[0]["loops"] for i in loop["body"] if i["op"] == "const"]
    assert consts and consts[0]["value"] == 1.0


def test_dynamic_kernels_take_sizes_as_parameters():
    with ember.no_grad():
        a = ember._C._fusion_preview(_plan(lambda x: ember.exp(x), ember.randn(5, 7)), dynamic=True)
        b = ember._C._fusion_preview(_plan(lambda x: ember.exp(x), ember.randn(6, 9)), dynamic=True)
    assert a == b and json.loads(a[0])["params"] > 0


def test_integer_constants_of_dynamic_kernels_are_parameters():
    """Note [Constants as parameters]: EKIR 1.2, the same kernel for every integer; 0, 1 and fractions
    stay literals."""
    def preview(fn, n):
        with ember.no_grad():
            return ember._C._fusion_preview(_plan(fn, ember.randn(n, 3)), dynamic=True, parameter_constants=True)
    a = preview(lambda x: x * 5 + x.mean(0) + 0.5, 4)
    assert a == preview(lambda x: x * -9 + x.mean(0) + 0.5, 6)
    kernels = [json.loads(k) for k in a]
    assert {k["ekir"] for k in kernels} == {"1.2"}
    constants = [ins["value"] for k in kernels for loop in k["loops"] for ins in loop["body"] if ins["op"] == "const"]
    assert 0.5 in constants and 1 in constants and any(str(v).startswith("p") for v in constants)
    assert json.loads(ember._C._fusion_preview(_plan(lambda x: x * 5, ember.randn(4, 3)), dynamic=True)[0])["ekir"] \
        == "1.0"


FIELDS = ["ir", "plugin_name", "plugin_version", "abi_minor", "fingerprint", "numerics", "core_version"]


@pytest.mark.parametrize("field", FIELDS)
def test_cache_key_changes_with_each_field(field):
    base = dict(ir="{}", plugin_name="cpu_codegen", plugin_version="1", abi_minor=2, fingerprint="gcc 12",
                numerics="default", core_version="0.1")
    changed = dict(base)
    changed[field] = 3 if field == "abi_minor" else base[field] + "x"
    assert ember._C._kernel_cache_digest(**base) != ember._C._kernel_cache_digest(**changed)
    assert ember._C._kernel_cache_digest(**base) == ember._C._kernel_cache_digest(**dict(base))


@pytest.mark.parametrize("mode", [0o777, 0o770])
def test_cache_directory_writable_by_others_is_refused(tmp_path, monkeypatch, mode):
    cache = tmp_path / "cache"
    cache.mkdir()
    os.chmod(cache, mode)
    monkeypatch.setenv("EMBER_CACHE_DIR", str(cache))
    ember._C._cache_reset()
    try:
        reason = ember._C._cache_refused()
        assert str(cache) in reason and "writable" in reason
    finally:
        monkeypatch.undo()
        ember._C._cache_reset()


def test_cache_directory_is_created_private(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path / "new"))
    ember._C._cache_reset()
    try:
        assert ember._C._cache_refused() == ""
        assert (os.stat(tmp_path / "new").st_mode & 0o777) == 0o700
    finally:
        monkeypatch.undo()
        ember._C._cache_reset()


_PROGRAM = """
import json, ember
f = ember.compile(lambda x: ember.sin(ember.cos(x)) * 2 + 1)
with ember.no_grad():
    y = f(ember.arange(64.0))
print(json.dumps({"stats": ember._C._codegen_stats(), "value": y[5].item()}))
"""


def _run_program(cache_dir):
    import subprocess
    import sys
    env = dict(os.environ, EMBER_CACHE_DIR=str(cache_dir))
    result = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


needs_generator = pytest.mark.skipif(not ember._C._codegen_available("cpu")[0],
                                     reason="the CPU code generator (cpu_codegen) is not loaded: "
                                            + ember._C._codegen_available("cpu")[1])


@needs_generator
def test_a_second_process_compiles_nothing(tmp_path):
    first = _run_program(tmp_path / "cache")
    second = _run_program(tmp_path / "cache")
    assert first["stats"]["compiles"] == 1 and first["stats"]["disk_hits"] == 0
    assert second["stats"]["compiles"] == 0 and second["stats"]["disk_hits"] == 1
    assert first["value"] == second["value"]


@needs_generator
def test_a_corrupt_cache_entry_is_compiled_again(tmp_path):
    first = _run_program(tmp_path / "cache")
    entries = list((tmp_path / "cache" / "kernels").rglob("*.bin"))
    assert len(entries) == 1
    data = entries[0].read_bytes()
    entries[0].write_bytes(data[: len(data) // 2])  # truncated
    again = _run_program(tmp_path / "cache")
    assert again["stats"]["compiles"] == 1 and again["value"] == first["value"]
    entries[0].write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))  # one flipped byte
    assert _run_program(tmp_path / "cache")["stats"]["compiles"] == 1
    # A well-formed entry whose blob the generator does not recognise.
    import hashlib
    blob = b"not a kernel"
    entries[0].write_bytes(b"EMBKCE1\n" + hashlib.sha256(blob).hexdigest().encode() + b"\n" + blob)
    stale = _run_program(tmp_path / "cache")
    assert stale["stats"]["compiles"] == 1 and stale["stats"]["disk_hits"] == 0
    assert stale["value"] == first["value"]
    assert _run_program(tmp_path / "cache")["stats"]["disk_hits"] == 1


@needs_generator
def test_a_cache_owned_by_others_is_refused_and_compiling_goes_on(tmp_path):
    cache = tmp_path / "shared"
    cache.mkdir()
    os.chmod(cache, 0o777)
    result = _run_program(cache)
    assert result["stats"]["compiles"] == 1
    assert not (cache / "kernels").exists()


@needs_generator
def test_without_the_generator_everything_runs_eagerly_with_the_reason(tmp_path):
    import subprocess
    import sys
    env = dict(os.environ, EMBER_PLUGINS="cpu", EMBER_CACHE_DIR=str(tmp_path))
    program = _PROGRAM.replace('print(json.dumps({"stats"',
                               'print(json.dumps({"reasons": f._ember_compiled.variants[0].graphs[0].eager_reasons, "stats"')
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["stats"]["compiles"] == 0
    assert "no code generator is loaded for device type 'cpu'" in out["reasons"][0]


def test_ember_trace_writes_graphs_recompiles_breaks_and_kernels(tmp_path):
    import subprocess
    import sys
    program = """
import ember
f = ember.compile(lambda x: ember.sin(x) * 2)
g = ember.compile(lambda x: x * 2 if x.sum().item() > 0 else x)
with ember.no_grad():
    f(ember.ones(3)); f(ember.ones(4)); g(ember.ones(2))
"""
    env = dict(os.environ, EMBER_TRACE=str(tmp_path), EMBER_LOGS="recompiles", EMBER_CACHE_DIR=str(tmp_path / "c"))
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "[ember recompiles]" in result.stderr and "size of dim 0 changed 3 -> 4" in result.stderr
    traces = list(tmp_path.glob("ember_trace_*.jsonl"))
    assert len(traces) == 1
    events = [json.loads(line) for line in traces[0].read_text().splitlines()]
    kinds = {e["event"] for e in events}
    assert {"graph", "recompiles", "graph_breaks"} <= kinds
    if ember._C._codegen_available("cpu")[0]:
        assert "codegen" in kinds
        assert any("ekir" in e["data"] for e in events if e["event"] == "codegen")


def test_horizontal_fusion_of_reductions_and_pointwise_over_the_same_rows():
    with ember.no_grad():
        plan = _plan(lambda x: (x.sum(1), x.amax(1), x * 2, ember.exp(x)), ember.randn(16, 32))
    ekir = [json.loads(k) for k in ember._C._fusion_preview(plan)]
    assert len(ekir) == 1
    assert [b["role"] for b in ekir[0]["buffers"]].count("input") == 1


def test_residual_mlp_block_fuses_its_pointwise_work_around_the_matmuls():
    w1, b1, w2, b2 = ember.randn(32, 64), ember.randn(64), ember.randn(64, 32), ember.randn(32)

    def block(x):
        return x + ember.relu(x @ w1 + b1) @ w2 + b2

    x = ember.randn(8, 32)
    with ember.no_grad():
        plan = _plan(block, x)
        assert ember.allclose(ember.compile(block)(x), block(x), rtol=1e-5, atol=1e-5)
    ops = [n["op"] for n in plan.graph["nodes"]]
    assert ops.count("mm") == 2
    kernels = ember._C._fusion_preview(plan)
    assert len(kernels) == 2, [json.loads(k)["name"] for k in kernels]


def test_force_eager_and_disable_run_the_python_function():
    calls = []

    def f(x):
        calls.append(1)
        return x + 1

    cf = ember.compile(f)
    x = ember.ones(2)
    cf(x)
    cf(x)
    assert len(calls) == 1  # traced once, then the compiled graph
    compiler.set_stance("force_eager")
    cf(x)
    compiler.set_stance("default")
    with compiler.disable():
        cf(x)
    assert len(calls) == 3


def test_disable_inside_a_compiled_function_is_a_graph_break():
    seen = []

    @compiler.disable
    def scale(t):
        seen.append(compiler.is_compiling())
        return t * 3

    def f(x):
        y = ember.sin(x)
        z = scale(y)  # the break
        return ember.cos(z) + 1

    x = ember.randn(8)
    report = compiler.explain(f, x)
    assert report.graph_count == 2 and report.graph_break_count == 1
    reason, location = report.break_reasons[0]
    assert "ember.compiler.disable" in reason and "scale" in reason
    assert location.endswith(f"test_compile.py:{f.__code__.co_firstlineno + 2}")
    cf = ember.compile(f)
    for _ in range(2):
        assert ember.allclose(cf(x), ember.cos(ember.sin(x) * 3) + 1, atol=1e-6)
    assert seen and not any(seen)  # the disabled code ran eagerly every time

    def g(x):
        y = x * 2
        with compiler.disable():
            y = y.exp()  # not traced
        return y - 1

    report = compiler.explain(g, x)
    assert report.graph_break_count == 1 and "with ember.compiler.disable()" in report.break_reasons[0][0]
    assert all("exp" not in ops for ops in report.ops_per_graph)
    assert ember.allclose(ember.compile(g)(x), (x * 2).exp() - 1, rtol=1e-6)
    with pytest.raises(RuntimeError, match=r"fullgraph=True.*ember.compiler.disable"):
        ember.compile(f, fullgraph=True)(x)


@needs_generator
def test_a_missing_compiler_runs_eagerly_naming_what_was_looked_for(tmp_path):
    import subprocess
    import sys
    env = dict(os.environ, EMBER_CXX=str(tmp_path / "no-such-compiler"), EMBER_CACHE_DIR=str(tmp_path / "c"))
    program = _PROGRAM.replace('print(json.dumps({"stats"',
                               'print(json.dumps({"reasons": f._ember_compiled.variants[0].graphs[0].eager_reasons, "stats"')
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["stats"]["compiles"] == 0
    assert "no-such-compiler" in out["reasons"][0], out["reasons"]


@needs_generator
def test_a_dynamic_dimension_serves_new_sizes_without_generating_code(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    ember._C._cache_reset()
    f = ember.compile(lambda x: ember.sin(x) * 2 + x.sum(0))
    try:
        with ember.no_grad():
            for n in (3, 4):
                f(ember.randn(n, 7))
            generated = ember._C._codegen_stats()["compiles"]
            for n in (5, 9, 100):
                x = ember.randn(n, 7)
                assert ember.allclose(f(x), ember.sin(x) * 2 + x.sum(0), atol=1e-5)
        assert ember._C._codegen_stats()["compiles"] == generated
        assert f._ember_compiled.recompile_reasons == ["x: size of dim 0 changed 3 -> 4"]
    finally:
        monkeypatch.undo()
        ember._C._cache_reset()


@needs_generator
def test_integers_and_mean_counts_of_a_dynamic_variant_are_kernel_parameters(tmp_path, monkeypatch):
    """Note [Constants as parameters]: a scalar from an integer argument and the count a mean divides
    by reach the kernel at launch."""
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    ember._C._cache_reset()
    table = ember.randn(40, 6)
    f = ember.compile(lambda x, start: (x - x.mean(0)) * start + table[start:start + x.shape[1]].sum(1))
    try:
        with ember.no_grad():
            for n, start in ((3, 2), (4, 5)):
                f(ember.randn(n, 6), start)
            generated = ember._C._codegen_stats()["compiles"]
            for n, start in ((5, 7), (9, 11), (100, 30)):
                x = ember.randn(n, 6)
                expected = (x - x.mean(0)) * start + table[start:start + 6].sum(1)
                for _ in range(2):  # met once it runs eagerly, then traced
                    assert ember.allclose(f(x, start), expected, atol=1e-5)
        assert ember._C._codegen_stats()["compiles"] == generated
        assert len(variants(f)[1].by_sizes) == 4
    finally:
        monkeypatch.undo()
        ember._C._cache_reset()


@needs_generator
def test_combined_kernels_renumber_their_constant_parameters():
    f = ember.compile(lambda a, b, k: (a * k, b + k * 3))
    with ember.no_grad():
        for k in (2, 5, 5, 8, 8):
            a, b = ember.randn(4, 4), ember.randn(7)
            got_a, got_b = f(a, b, k)
            assert ember.allclose(got_a, a * k) and ember.allclose(got_b, b + k * 3)


@needs_generator
def test_processes_compiling_the_same_kernel_at_once_are_safe(tmp_path):
    import subprocess
    import sys
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", _PROGRAM], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    values = {json.loads(out.strip().splitlines()[-1])["value"] for out, _ in outs}
    assert len(values) == 1
    assert len(list((tmp_path / "cache" / "kernels").rglob("*.bin"))) == 1
    assert not list((tmp_path / "cache" / "kernels").rglob("*.tmp*"))
    assert _run_program(tmp_path / "cache")["stats"]["disk_hits"] == 1


def test_replacing_a_modules_parameter_recompiles_and_uses_the_new_one():
    model = ember.nn.Linear(3, 2)
    compiled = ember.compile(model)
    x = ember.ones(1, 3)
    with ember.no_grad():
        compiled(x)
        model.weight = ember.nn.Parameter(ember.zeros(2, 3))
        model.bias = ember.nn.Parameter(ember.ones(2))
        assert compiled(x).tolist() == [[1.0, 1.0]]
    assert any("was replaced" in r for r in compiled.forward.recompile_reasons)


def test_in_place_updates_of_arguments_and_captured_tensors_reach_the_caller():
    def f(x):
        x.add_(1)
        return x * 2

    cf = ember.compile(f)
    for _ in range(2):  # the tracing call and a compiled one
        x = ember.zeros(3)
        y = cf(x)
        assert x.tolist() == [1.0, 1.0, 1.0]
        assert y.tolist() == [2.0, 2.0, 2.0]
    w = ember.ones(3)
    g = ember.compile(lambda: w.mul_(2))
    for expected in (2.0, 4.0, 8.0):
        out = g()
        assert w.tolist() == [expected] * 3
        assert out.tolist() == [expected] * 3
    assert variants(g)[0].by_sizes


def test_a_read_of_an_updated_tensor_sees_the_update():
    count = ember.zeros([])
    f = ember.compile(lambda x: x * (count.add_(1).item()))
    assert f(ember.ones(2)).tolist() == [1.0, 1.0]
    assert f(ember.ones(2)).tolist() == [2.0, 2.0]
    assert count.item() == 2.0


@pytest.mark.parametrize("make", [
    lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9),
    lambda p: ember.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    lambda p: ember.optim.Adam(p, lr=0.01),
    lambda p: ember.optim.AdamW(p, lr=0.01),
    lambda p: ember.optim.RMSprop(p, lr=0.01, momentum=0.5),
], ids=["sgd", "nesterov", "adam", "adamw", "rmsprop"])
def test_a_compiled_optimizer_step_matches_eager(make):
    ember.manual_seed(0)
    eager_model = ember.nn.Sequential(ember.nn.Linear(5, 7), ember.nn.Tanh(), ember.nn.Linear(7, 3))
    compiled_model = ember.nn.Sequential(ember.nn.Linear(5, 7), ember.nn.Tanh(), ember.nn.Linear(7, 3))
    compiled_model.load_state_dict(eager_model.state_dict())
    eager_opt, compiled_opt = make(eager_model.parameters()), make(compiled_model.parameters())
    step = ember.compile(compiled_opt.step)
    x = ember.randn(4, 5)
    for _ in range(5):
        for model, opt, run in ((eager_model, eager_opt, eager_opt.step), (compiled_model, compiled_opt, step)):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            run()
    for a, b in zip(eager_model.parameters(), compiled_model.parameters()):
        assert ember.equal(a, b)
    for a, b in zip(eager_opt.state.values(), compiled_opt.state.values()):
        for key in a:
            assert ember.equal(a[key], b[key]), key
    report = ember.compiler.explain(step)
    assert report.eager_reasons == []
    # One plan serves every step: no break (Adam's bias corrections stay tensors while traced,
    # Note [Traced bias corrections]), and the fresh .grad tensors backward makes after each
    # zero_grad are read where the trace read the old ones (Note [Gradients read while tracing]).
    assert report.graph_break_count == 0 and report.recompile_reasons == []
    if ember._C._codegen_available("cpu")[0]:
        plan = report.graphs[-1]
        # The four parameters' updates are one kernel (Note [Combo kernels]; Adam's step counts
        # and bias corrections are one more, before it) that writes every parameter and state
        # straight into its tensor (Note [In-place updates]).
        assert plan.num_kernels == (2 if isinstance(compiled_opt, ember.optim.Adam) else 1)
        assert plan.num_in_place_updates == len(plan.graph["outputs"]) > 0


def _drop_bias_grad(model):
    model.bias.grad = None


def _transpose_weight_grad(model):
    model.weight.grad = ember.ones(3, 2).t()


@pytest.mark.parametrize("change,reason", [
    (_drop_bias_grad, "a .grad the function reads is None now"),
    (_transpose_weight_grad, "a .grad the function reads is laid out otherwise now: float32 [2, 3] strides [1, 2] "
                             "on cpu vs float32 [2, 3] strides [3, 1] on cpu"),
])
def test_a_compiled_step_traces_again_when_a_grad_it_reads_is_gone_or_laid_out_otherwise(change, reason):
    model = ember.nn.Linear(3, 2)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    step = ember.compile(opt.step)
    model(ember.ones(1, 3)).sum().backward()
    step()
    step()
    change(model)
    before = model.weight.clone()
    step()
    assert step._ember_compiled.recompile_reasons == [reason]
    if model.weight.grad is not None:
        assert ember.allclose(model.weight, before - 0.1 * model.weight.grad)


_THREADS_PROGRAM = """
import json, os, ember
def codegen_workers():
    names = []
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/comm") as comm:
            names.append(comm.read().strip())
    return names.count("ember-codegen")
f = ember.compile(lambda x: ember.sin(ember.cos(x)))
x = ember.randn(1 << 20)
counts = []
with ember.no_grad():
    for n in (3, 1, 2):
        ember.set_num_threads(n)
        f(x)
        counts.append(codegen_workers())
print(json.dumps(counts))
"""


@needs_generator
def test_set_num_threads_reaches_generated_kernels(tmp_path):
    # The generator's pool is its own; the core hands the count on in each
    # launch, and the pool keeps one worker fewer than the count.
    import subprocess
    import sys
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path))
    env.pop("EMBER_NUM_THREADS", None)
    result = subprocess.run([sys.executable, "-c", _THREADS_PROGRAM], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [2, 0, 1]


@needs_generator
def test_a_kernel_that_may_fault_writes_no_update_in_place():
    # The float update would fuse into the integer division's kernel, which may fault: so both
    # are written after every kernel ran (Note [In-place updates]), and a fault changes neither.
    def update(p, q, d):
        p.mul_(2)
        q.floor_divide_(d)

    p = ember.ones(5)
    q = ember.arange(8, dtype=ember.int64)
    d = ember.ones(8, dtype=ember.int64)
    step = ember.compile(update)
    with ember.no_grad():
        step(p, q, d)
        step(p, q, d)
        plan = variants(step)[-1].graphs[-1]
        assert plan.num_kernels == 1 and plan.num_in_place_updates == 0
        d[3] = 0
        p_before, q_before = p.clone(), q.clone()
        with pytest.raises(ValueError, match="integer division by zero"):
            step(p, q, d)
    assert ember.equal(p, p_before) and ember.equal(q, q_before)
    assert p.tolist() == [4.0] * 5


@needs_generator
def test_updates_written_in_place_bump_versions_and_keep_views_in_step():
    # A kernel writes the update into the caller's tensor: views see it, and its version
    # moves as a copy_ would move it.
    w = ember.ones(6)
    view = w[2:4]
    g = ember.compile(lambda: w.mul_(3))
    with ember.no_grad():
        g()
        before = w._version
        g()
    assert w._version == before + 1
    assert view.tolist() == [9.0, 9.0]
    assert variants(g)[-1].graphs[-1].num_in_place_updates == 1


@needs_generator
def test_an_update_of_a_read_only_tensor_is_refused_before_anything_is_written(np, tmp_path):
    # The target of an in-place update is checked at the commit point (Note [In-place updates]),
    # before any kernel writes a caller tensor: the other argument keeps its value too.
    path = tmp_path / "weights.bin"
    np.arange(6, dtype=np.float32).tofile(path)
    frozen = ember.from_dlpack(np.memmap(path, dtype=np.float32, mode="r", shape=(6,)))
    other = ember.ones(6)

    def update(a, b):
        b.add_(1)
        a.mul_(2)

    step = ember.compile(update)
    with ember.no_grad():
        step(ember.ones(6), ember.ones(6))
        assert variants(step)[-1].graphs[-1].num_in_place_updates == 2
        with pytest.raises(RuntimeError, match="read-only tensor"):
            step(frozen, other)
    assert frozen.tolist() == [0, 1, 2, 3, 4, 5] and other.tolist() == [1.0] * 6


def test_a_kernel_reads_a_transposed_view_of_an_input_it_also_reads_as_it_is():
    def f(x, y):
        return x * 2, x.t() * y

    x, y = ember.randn(4, 4), ember.randn(4, 4)
    with ember.no_grad():
        for a, b in zip(ember.compile(f)(x, y), f(x, y)):
            assert ember.equal(a, b)


def test_a_kernel_reading_the_old_value_elsewhere_keeps_the_update_a_copy():
    # One kernel computes a * 3 and x's update, and reads the old x transposed: element (i, j)
    # of the update would overwrite what (j, i) still reads, so the update goes to a new
    # buffer, copied in at the end (Note [In-place updates]), and the results are eager's.
    def f(x, y):
        a = x.t() * y
        x.mul_(2)
        return a * 3

    x, y = ember.randn(4, 4), ember.randn(4, 4)
    eager_x = x.clone()
    expected = f(eager_x, y)
    cf = ember.compile(f)
    for _ in range(2):
        compiled_x = x.clone()
        assert ember.equal(cf(compiled_x, y), expected)
        assert ember.equal(compiled_x, eager_x)
    if ember._C._codegen_available("cpu")[0]:
        assert variants(cf)[-1].graphs[-1].num_in_place_updates == 0


@needs_generator
def test_integer_division_by_zero_in_a_generated_kernel_changes_no_input():
    # Updates of the caller's tensors are written once every kernel has run (Note [Input updates]).
    def divide_in_place(x, y):
        x.floor_divide_(y)
        return x * 2

    x = ember.arange(1 << 16, dtype=ember.int64)
    y = ember.ones(1 << 16, dtype=ember.int64)
    y[-1] = 0
    before = x.clone()
    with ember.no_grad(), pytest.raises(ValueError, match=r"kernel '\w+ \(floor_divide, mul\)': integer division by zero"):
        ember.compile(divide_in_place)(x, y)
    assert ember.equal(x, before)
