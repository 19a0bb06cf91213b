"""ember.profiler against what a torch.profiler user expects: the table of a
real loop with forward and backward, grouping by input shape, schedules, the
chrome trace (checked against the trace-event format), record_function
nesting, memory events, and nothing recorded when off."""

import json
import os
import pathlib
import re
import threading

import pytest

import ember
from ember.profiler import ProfilerAction, ProfilerActivity, profile, record_function, schedule

STEPS = 6


def train_loop(steps=STEPS, size=8):
    """Per step: x @ w (mm), + b, sigmoid, sum forward; backward through them."""
    w = ember.ones(size, size, requires_grad=True)
    b = ember.zeros(size, requires_grad=True)
    x = ember.ones(4, size)
    for _ in range(steps):
        loss = ember.sigmoid(x @ w + b).sum()
        loss.backward()
    return w, b


def averages_by_key(prof, **kwargs):
    return {avg.key: avg for avg in prof.key_averages(**kwargs)}


def table_rows(table):
    """The rows of a table as lists of cells (columns split on two or more spaces)."""
    lines = table.splitlines()
    seps = [i for i, line in enumerate(lines) if line.startswith("---")]
    return [re.split(r"\s{2,}", line.strip()) for line in lines[seps[1] + 1:seps[2]]]


def microseconds(cell):
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s)", cell).groups()
    return float(number) * {"us": 1, "ms": 1e3, "s": 1e6}[unit]


# -- the trace-event format (Chrome's Trace Event Format document; what Perfetto reads)
def check_trace_event(event):
    assert isinstance(event, dict), event
    ph = event.get("ph")
    assert ph in {"X", "i", "C", "M", "s", "f"}, event
    assert isinstance(event.get("name"), str) and event["name"], event
    assert isinstance(event.get("pid"), int), event
    assert isinstance(event.get("tid"), int), event
    if ph == "M":
        assert event["name"] in {"process_name", "thread_name"}, event
        assert isinstance(event["args"]["name"], str), event
        return
    assert isinstance(event.get("ts"), (int, float)) and event["ts"] >= 0, event
    if "args" in event:
        assert isinstance(event["args"], dict), event
    if ph == "X":
        assert isinstance(event.get("dur"), (int, float)) and event["dur"] >= 0, event
        assert isinstance(event.get("cat"), str), event
    elif ph == "i":
        assert event.get("s", "t") in {"g", "p", "t"}, event
    elif ph == "C":
        assert event["args"] and all(isinstance(v, (int, float)) for v in event["args"].values()), event
    elif ph in {"s", "f"}:  # a flow arrow's ends
        assert isinstance(event.get("id"), int) and isinstance(event.get("cat"), str), event
        if ph == "f":
            assert event.get("bp") in {None, "e"}, event


def load_trace(path):
    with open(path) as f:
        trace = json.load(f)
    assert isinstance(trace, dict) and isinstance(trace["traceEvents"], list)
    for event in trace["traceEvents"]:
        check_trace_event(event)
    return trace["traceEvents"]


def test_table_lists_the_loops_ops_with_their_call_counts():
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        train_loop()
    averages = averages_by_key(prof)
    for op in ("mm", "add", "sigmoid", "sum"):
        assert averages[op].count >= STEPS, (op, averages[op].count)
    assert averages["mm"].count == STEPS * 2  # forward, and the grad of w (x needs none)
    assert averages["sigmoid"].count == STEPS * 2  # forward, and its derivative's sigmoid(x)
    for node in ("MmBackward0", "AddBackward0", "SigmoidBackward0"):
        assert averages[f"autograd::engine::evaluate_function: {node}"].count == STEPS
    # The first step's AccumulateGrad copies the gradient in; later ones add to it.
    assert averages["autograd::engine::evaluate_function: AccumulateGrad"].count == STEPS * 2
    assert averages["add"].count > STEPS
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=100)
    header = table.splitlines()[1]
    assert re.split(r"\s{2,}", header.strip()) == [
        "Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    rows = table_rows(table)
    calls = {row[0]: int(row[-1]) for row in rows}
    assert calls["sigmoid"] == averages["sigmoid"].count
    self_times = [microseconds(row[2]) for row in rows]
    assert self_times == sorted(self_times, reverse=True)
    assert len(rows) == len(averages)
    long_name = next(row[0] for row in rows if "SigmoidBackward" in row[0])
    assert long_name == "autograd::engine::evaluate_function: SigmoidBackward..."  # cut at 55 as PyTorch cuts
    assert re.search(r"^Self CPU time total: [0-9.]+(us|ms|s)$", table.splitlines()[-1])
    assert len(table_rows(prof.key_averages().table(row_limit=3))) == 3


def test_self_time_excludes_children_and_total_includes_them():
    with profile() as prof:
        train_loop(steps=2)
    for event in prof.events():
        children = sum(child.cpu_time_total for child in event.cpu_children)
        assert event.self_cpu_time_total == pytest.approx(event.cpu_time_total - children)
        assert event.self_cpu_time_total >= -1e-6
        for child in event.cpu_children:
            assert child.cpu_parent is event
            assert event.start_us <= child.start_us and child.end_us <= event.end_us


def test_group_by_input_shape_separates_shapes():
    a, b = ember.ones(2, 3), ember.ones(4, 5)
    with profile(record_shapes=True) as prof:
        for _ in range(3):
            a * a
        for _ in range(2):
            b * b
    grouped = [avg for avg in prof.key_averages(group_by_input_shape=True) if avg.key == "mul"]
    assert sorted((avg.count, str(avg.input_shapes)) for avg in grouped) == [
        (2, "[[4, 5], [4, 5]]"), (3, "[[2, 3], [2, 3]]")]
    assert averages_by_key(prof)["mul"].count == 5
    assert averages_by_key(prof, group_by_overload_name=True)["mul"].count == 5  # one overload per op
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="count")
    assert table.splitlines()[1].rstrip().endswith("Input Shapes")
    assert "[[2, 3], [2, 3]]" in table and "[[4, 5], [4, 5]]" in table
    event = next(e for e in prof.events() if e.name == "mul")
    assert event.input_dtypes == ["float32", "float32"]


def test_schedule_records_only_active_steps_and_calls_on_trace_ready_per_cycle():
    ready = []
    x = ember.ones(3)
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=lambda p: ready.append(p.events())) as prof:
        for _ in range(10):
            x * x
            prof.step()
    # Steps 0-3 are the first cycle (wait, warmup, active, active), 4-7 the second; then nothing.
    assert len(ready) == 2
    for events, steps in zip(ready, (("2", "3"), ("6", "7"))):
        assert sorted(e.name for e in events if e.name.startswith("ProfilerStep#")) == [
            f"ProfilerStep#{s}" for s in steps]
        assert sum(e.name == "mul" for e in events) == 2
        for event in events:
            if event.name == "mul":
                assert event.cpu_parent.name.startswith("ProfilerStep#")


def test_schedule_actions_as_pytorch():
    fn = schedule(wait=2, warmup=1, active=2, repeat=1, skip_first=1)
    assert [fn(i) for i in range(8)] == [
        ProfilerAction.NONE, ProfilerAction.NONE, ProfilerAction.NONE, ProfilerAction.WARMUP,
        ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE, ProfilerAction.NONE, ProfilerAction.NONE]
    import torch.profiler as tp
    reference = tp.schedule(wait=2, warmup=1, active=2, repeat=1, skip_first=1)
    assert [fn(i).name for i in range(12)] == [reference(i).name for i in range(12)]


@pytest.mark.parametrize("arguments, named", [
    (dict(wait=-1, warmup=1, active=1), "wait"),
    (dict(wait=0, warmup=-2, active=1), "warmup"),
    (dict(wait=0, warmup=1, active=0), "active"),
    (dict(wait=0, warmup=1, active=1, repeat=-1), "repeat"),
    (dict(wait=0, warmup=1, active=1, skip_first=-3), "skip_first"),
])
def test_bad_schedule_numbers_name_the_argument(arguments, named):
    with pytest.raises(ValueError, match=f"schedule: {named} must be >="):
        schedule(**arguments)
    with pytest.raises(TypeError, match="schedule: active must be an int"):
        schedule(wait=0, warmup=1, active=1.5)


def test_unknown_sort_key_is_a_clear_error():
    with profile() as prof:
        ember.ones(2) + 1
    with pytest.raises(ValueError, match="unknown sort_by key 'self_cpu_time'.*self_cpu_time_total"):
        prof.key_averages().table(sort_by="self_cpu_time")


def test_chrome_trace_passes_the_format_check_and_shows_nesting(tmp_path):
    x = ember.ones(16)
    with profile(record_shapes=True) as prof:
        with record_function("outer"):
            with record_function("inner"):
                x + x
            x * x
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    assert [p.name for p in tmp_path.iterdir()] == ["trace.json"]  # no temporary file left
    events = load_trace(path)
    complete = {e["name"]: e for e in events if e["ph"] == "X"}
    outer, inner, add, mul = complete["outer"], complete["inner"], complete["add"], complete["mul"]
    assert outer["cat"] == inner["cat"] == "user_annotation"
    assert add["cat"] == "cpu_op" and add["args"]["Input Dims"] == [[16], [16]]
    assert add["args"]["Device"] == "cpu"

    def inside(child, parent):
        return (child["tid"] == parent["tid"] and parent["ts"] <= child["ts"]
                and child["ts"] + child["dur"] <= parent["ts"] + parent["dur"] + 1e-3)

    assert inside(inner, outer) and inside(add, inner) and inside(mul, outer) and not inside(mul, inner)
    assert all(e["pid"] == os.getpid() for e in events)


def test_memory_events_with_profile_memory(tmp_path):
    x = ember.ones(1000)
    with profile(profile_memory=True) as prof:
        y = x + x  # its output is a 4096-byte block, allocated inside the op
        del y
    memory = [e for e in prof.events() if e.name == "[memory]"]
    assert any(e.cpu_memory_usage == 4096 for e in memory)
    assert any(e.cpu_memory_usage == -4096 for e in memory)
    made = next(e for e in memory if e.cpu_memory_usage == 4096)
    assert made.total_allocated >= 4096 and made.total_reserved >= made.total_allocated
    assert made.cpu_parent.name == "add" and made.cpu_parent.cpu_memory_usage == 4096
    header = prof.key_averages().table().splitlines()[1]
    assert "CPU Mem" in header and "Self CPU Mem" in header
    path = tmp_path / "memory.json"
    prof.export_chrome_trace(path)
    events = load_trace(path)
    instants = [e for e in events if e["ph"] == "i" and e["name"] == "[memory]"]
    assert {e["args"]["Bytes"] for e in instants} >= {4096, -4096}
    counters = [e for e in events if e["ph"] == "C"]
    assert counters and all(set(c["args"]) == {"Allocated", "Reserved"} for c in counters)


def test_no_memory_events_without_profile_memory():
    with profile() as prof:
        ember.ones(1000)
    assert not any(e.name == "[memory]" for e in prof.events())
    assert "CPU Mem" not in prof.key_averages().table()


def test_profiling_off_records_nothing():
    assert not ember._C._profiler_enabled()
    with record_function("not profiled"):
        ember.ones(4) * 2
    train_loop(steps=1)
    with profile() as prof:
        pass
    assert list(prof.events()) == []
    assert prof.key_averages().table() == ""
    assert not ember._C._profiler_enabled()


def test_record_function_as_decorator_and_ops_on_another_thread():
    @record_function("helper")
    def helper(t):
        return t * t

    x = ember.ones(4)
    with profile() as prof:
        helper(x)
        worker = threading.Thread(target=helper, args=(x,))
        worker.start()
        worker.join()
    helpers = [e for e in prof.events() if e.name == "helper"]
    assert len(helpers) == 2 and helpers[0].thread != helpers[1].thread
    for h in helpers:
        assert [c.name for c in h.cpu_children] == ["mul"]
    assert helper.__name__ == "helper"


def test_export_to_an_unwritable_path_names_it(tmp_path):
    with profile() as prof:
        ember.ones(2) + 1
    missing = tmp_path / "no-such-dir" / "trace.json"
    with pytest.raises(OSError, match=re.escape(str(missing))):
        prof.export_chrome_trace(str(missing))


def test_results_before_recording_and_nested_profiles_are_errors():
    prof = profile(schedule=schedule(wait=5, warmup=1, active=1))
    with prof:
        with pytest.raises(RuntimeError, match="nothing has been recorded yet"):
            prof.key_averages()
    with profile():
        with pytest.raises(RuntimeError, match="already running"):
            with profile():
                pass
    with pytest.raises(TypeError, match="activities must hold ProfilerActivity"):
        profile(activities=["cpu"])


def test_tensorboard_trace_handler_writes_one_trace_per_cycle(tmp_path):
    x = ember.ones(3)
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=ember.profiler.tensorboard_trace_handler(str(tmp_path / "tb"), "worker0")) as p:
        for _ in range(5):
            x + x
            p.step()
    files = sorted((tmp_path / "tb").iterdir())
    assert len(files) == 2
    for path in files:
        assert re.fullmatch(r"worker0\.\d+\.pt\.trace\.json", path.name)
        assert any(e["name"] == "add" for e in load_trace(path))


def test_with_stack_gives_the_callers_frames():
    with profile(with_stack=True) as prof:
        ember.ones(3) * 3
    mul = next(e for e in prof.events() if e.name == "mul")
    assert mul.stack and "test_profiler.py" in mul.stack[0], mul.stack
    assert not any(os.sep + "ember" + os.sep + "profiler" in frame for frame in mul.stack)


def test_autograd_profiler_aliases():
    with ember.autograd.profiler.profile(record_shapes=True) as prof:
        with ember.autograd.profiler.record_function("block"):
            ember.ones(2) + 1
    names = {e.name for e in prof.function_events}
    assert {"block", "add"} <= names
    assert "block" in prof.table(sort_by="cpu_time_total")
    with ember.autograd.profiler.profile(enabled=False) as off:
        ember.ones(2) + 1
    with pytest.raises(RuntimeError, match="not finished"):
        off.key_averages()


def test_memory_summary_and_stats():
    keep = ember.ones(1 << 16)
    summary = ember.cpu.memory_summary()
    assert "Ember cpu memory summary, device ID 0" in summary
    assert "Allocated memory" in summary and "Reserved memory" in summary
    assert ember.cpu.memory_stats()["allocated_bytes"] >= keep.numel() * 4
    assert all(line.startswith("|") and line.endswith("|") for line in summary.splitlines())


def test_op_counts_match_torch_profiler_on_the_same_program():
    """Ember names ops as its catalogue does ("mul"), torch as ATen does ("aten::mul"); the counts of
    the primitive ops a program calls directly agree."""
    import torch
    from torch.profiler import profile as torch_profile

    def program(lib):
        a, b = lib.ones(5, 5), lib.ones(5, 5)
        for _ in range(4):
            a = (a * b + b).sigmoid()
        return a.sum()

    with profile() as prof:
        program(ember)
    with torch_profile(activities=[torch.profiler.ProfilerActivity.CPU]) as reference:
        program(torch)
    ours = averages_by_key(prof)
    theirs = {avg.key: avg.count for avg in reference.key_averages()}
    for op in ("mul", "add", "sigmoid", "sum"):
        assert ours[op].count == theirs[f"aten::{op}"], op


def test_compile_events_and_kernel_builds_are_in_the_same_trace(tmp_path):
    import subprocess
    import sys
    program = """
import json, sys
import ember
f = ember.compile(lambda x: ember.sin(x) * 2)
with ember.no_grad(), ember.profiler.profile() as prof:
    f(ember.ones(3)); f(ember.ones(4))
prof.export_chrome_trace(sys.argv[1])
print(json.dumps(ember._C._codegen_available("cpu")[0]))
"""
    trace_path = tmp_path / "trace.json"
    env = dict(os.environ, EMBER_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("EMBER_LOGS", None)
    env.pop("EMBER_TRACE", None)
    result = subprocess.run([sys.executable, "-c", program, str(trace_path)], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    codegen = json.loads(result.stdout.strip().splitlines()[-1])
    events = load_trace(trace_path)
    instants = {e["name"] for e in events if e["ph"] == "i" and e.get("cat") == "compile"}
    assert {"compile:graph", "compile:recompiles"} <= instants, instants
    assert any(e["ph"] == "X" and e["name"] == "sin" for e in events)  # the eager run of a traced op
    if codegen:
        assert any(e["ph"] == "X" and e["name"].startswith("compile_kernel: ") for e in events)


TOY_PLUGIN = pathlib.Path(ember._C.__file__).resolve().parents[2] / "test_plugins" / "libtoy.so"


def test_plugin_loading_and_another_devices_ops_and_memory_in_one_trace(tmp_path):
    """In a child process: plugins cannot be unloaded, and this one must not join the other tests' devices."""
    import subprocess
    import sys
    assert TOY_PLUGIN.exists(), f"the toy test plugin is not built ({TOY_PLUGIN})"
    program = f"""
import sys
import ember
with ember.profiler.profile(profile_memory=True) as prof:
    ember.load_plugin({str(TOY_PLUGIN)!r})
    y = ember.ones(256).to("toy:1")
    v = y.view(16, 16)  # the toy plugin has no kernels; a view needs none
    del y, v
prof.export_chrome_trace(sys.argv[1])
print(sorted({{(e.device, e.device_memory_usage) for e in prof.events() if e.is_memory and e.device != "cpu"}}))
"""
    trace_path = tmp_path / "trace.json"
    result = subprocess.run([sys.executable, "-c", program, str(trace_path)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    events = load_trace(trace_path)
    loads = [e for e in events if e["ph"] == "X" and e["name"].startswith("load_plugin: ")]
    assert len(loads) == 1 and loads[0]["name"].endswith("libtoy.so")
    views = [e for e in events if e["ph"] == "X" and e["name"] == "view"]
    assert [v["args"]["Device"] for v in views] == ["toy:1"]
    toy_memory = [e for e in events if e["ph"] == "i" and e["name"] == "[memory]" and e["args"]["Device Type"] == "toy"]
    assert {e["args"]["Device Id"] for e in toy_memory} == {1}
    assert {e["args"]["Bytes"] for e in toy_memory} >= {1024, -1024}
    assert any(e["ph"] == "C" and e["name"] == "Memory (toy:1)" for e in events)
    assert result.stdout.strip().splitlines()[-1] == "[('toy:1', -1024), ('toy:1', 1024)]"


LAGGING_PLUGIN = TOY_PLUGIN.parent / "liblagging.so"


def test_device_time_of_a_plugin_that_times_its_kernels(tmp_path):
    """The lagging test device runs each kernel 20 ms after its call returned, and its profiling
    extension says when: the op's device time, the table's device columns and the trace's kernel track
    show it. In a child process, for the same reasons as the toy plugin."""
    import subprocess
    import sys
    assert LAGGING_PLUGIN.exists(), f"the lagging test plugin is not built ({LAGGING_PLUGIN})"
    program = f"""
import json, sys, warnings
import ember
from ember.profiler import ProfilerActivity, profile
ember.load_plugin({str(LAGGING_PLUGIN)!r})
x = ember.ones(64).to("lagging")
with warnings.catch_warnings():
    warnings.simplefilter("error")
    prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1])
with prof:
    for _ in range(3):
        y = ember.neg(x)
prof.export_chrome_trace(sys.argv[1])
neg = {{a.key: a for a in prof.key_averages()}}["neg"]
print(json.dumps([neg.count, neg.cpu_time_total, neg.self_device_time_total, neg.device_time,
                  neg.self_cuda_time_total]))
print(prof.key_averages().table(sort_by="self_cuda_time_total", row_limit=5))
"""
    trace_path = tmp_path / "trace.json"
    result = subprocess.run([sys.executable, "-c", program, str(trace_path)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    count, cpu_total, self_device, device_avg, cuda_alias = json.loads(lines[0])
    assert count == 3
    assert self_device >= 3 * 20000 > cpu_total  # microseconds: the device lagged, the host did not
    assert device_avg == pytest.approx(self_device / 3) and cuda_alias == self_device
    table = "\n".join(lines[1:])
    assert "Self LAGGING" in table and "LAGGING total" in table and "Self LAGGING time total" in table
    assert table_rows(table)[0][0] == "neg"  # sorted by device time
    events = load_trace(trace_path)
    track = [e for e in events if e["ph"] == "M" and e["args"]["name"] == "lagging:0 kernels"]
    assert len(track) == 1
    kernels = [e for e in events if e["ph"] == "X" and e.get("cat") == "kernel" and e["pid"] == track[0]["pid"]]
    assert [k["name"] for k in kernels] == ["lagging_neg_kernel"] * 3
    assert all(k["dur"] >= 20000 for k in kernels)
    ops = {e["args"]["External id"]: e for e in events if e["ph"] == "X" and e["name"] == "neg"}
    assert {k["args"]["External id"] for k in kernels} == set(ops)
    starts = {e["id"] for e in events if e["ph"] == "s"}
    ends = {e["id"] for e in events if e["ph"] == "f" and e["pid"] == track[0]["pid"]}
    assert {k["args"]["correlation"] for k in kernels} <= starts & ends


def test_a_device_activity_without_a_timing_plugin_warns(monkeypatch):
    monkeypatch.setattr(ember._C, "_profiler_timed_device_types", lambda: ["cpu"])
    with pytest.warns(UserWarning, match="device time for XPU needs a plugin with the profiling extension"):
        ember.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.XPU])


def test_cpu_kernels_are_timed_but_cpu_ops_have_no_device_time():
    a = ember.ones(64, 64)
    with ember.profiler.profile() as prof:
        ember.mm(a, a)
    mm = [e for e in prof.events() if e.name == "mm"]
    assert len(mm) == 1 and [k.device for k in mm[0].kernels] == ["cpu"]
    kernel = mm[0].kernels[0]
    assert mm[0].start_us <= kernel.start_us <= kernel.end_us <= mm[0].end_us
    assert mm[0].self_device_time_total == 0 and "Self CPU" in prof.key_averages().table()
    assert "Self DEVICE" not in prof.key_averages().table() and "CUDA" not in prof.key_averages().table()
