"""ember.distributed's collectives on the gloo engine, across processes on
this machine: every collective at world sizes 1 to 4, every dtype, sizes 0,
1, 4 KiB (the most a collective carries inside its check), 4 KiB + 1
and 1 MiB + 1 against NumPy, and the faults (a mismatched collective, a
killed rank, a stalled rank) as errors that name the ranks."""

import json
import os
import subprocess
import sys
import time

import pytest

import ember.distributed as dist

WORKER = os.path.join(os.path.dirname(__file__), "distributed", "worker.py")

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="the gloo plugin is not built")


def run_ranks(tmp_path, scenario, world, arg=None, timeout=120, env=None):
    tmp_path.mkdir(parents=True, exist_ok=True)
    store = tmp_path / "store"
    outs = [tmp_path / f"rank{r}.json" for r in range(world)]
    environment = dict(os.environ, OMP_NUM_THREADS="1", **(env or {}))
    procs = [subprocess.Popen([sys.executable, WORKER, scenario, str(r), str(world), str(store), str(outs[r])]
                              + ([arg] if arg is not None else []), env=environment,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for r in range(world)]
    logs = []
    try:
        for p in procs:
            logs.append(p.communicate(timeout=timeout)[0].decode(errors="replace"))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    reports = []
    for r, out in enumerate(outs):
        reports.append(json.loads(out.read_text()) if out.exists() else {"missing": True, "log": logs[r][-3000:]})
    return reports, [p.returncode for p in procs]


@pytest.mark.parametrize("world", [1, 2, 3, 4])
def test_every_collective_every_dtype(tmp_path, world):
    sizes = {1: "0,1,-1", 2: "0,1,-2,-3,-1", 3: "0,1,-2,-3"}.get(world, "0,1")
    reports, codes = run_ranks(tmp_path, "collectives", world, sizes, timeout=240)
    for report in reports:
        assert report.get("ok"), report
    assert len({r["sequence"] for r in reports}) == 1


@pytest.mark.parametrize("kind", ["size", "size-across-the-inline-limit", "op", "dtype"])
def test_a_mismatched_collective_fails_on_every_rank_naming_both(tmp_path, kind):
    reports, codes = run_ranks(tmp_path, "mismatch", 2, kind)
    for report in reports:
        assert report.get("ok"), report
        error = report["error"]
        assert error is not None, report
        assert "rank 0 called" in error and "rank 1 called" in error, error
        assert report["elapsed"] < 5, report
        assert report["after"] == [2.0, 2.0], report
    if kind == "size":
        assert "[4]" in reports[0]["error"] and "[5]" in reports[0]["error"]
    if kind == "size-across-the-inline-limit":
        assert "[4]" in reports[0]["error"] and "[65536]" in reports[0]["error"]
    if kind == "op":
        assert "broadcast" in reports[0]["error"] and "all_reduce" in reports[0]["error"]


def test_a_killed_rank_is_named_by_the_survivors(tmp_path):
    reports, codes = run_ranks(tmp_path, "killed", 3)
    assert codes[2] == -9
    for report in reports[:2]:
        assert report.get("ok"), report
        assert report["error"] is not None, report
        assert "rank 2" in report["error"], report["error"]
        assert report["elapsed"] < 3, report


def test_a_stalled_rank_times_out_at_the_configured_time(tmp_path):
    reports, codes = run_ranks(tmp_path, "stalled", 2, "2", env={"TEST_GROUP_TIMEOUT": "2"})
    report = reports[0]
    assert report.get("ok"), report
    assert report["error"] is not None and "rank 0 of 2" in report["error"], report
    assert "all_reduce" in report["error"], report["error"]
    assert 1.8 <= report["elapsed"] <= 4.0, report
    assert "rank 1" in report["error"], report["error"]


def test_bad_operands_fail_at_the_call_naming_them():
    store = dist.HashStore()
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        import ember
        with pytest.raises(ValueError, match=r"all_gather on rank 0 of 1: the output must hold world_size"):
            dist.all_gather_into_tensor(ember.zeros(3), ember.zeros(2))
        with pytest.raises(ValueError, match=r"root 3 is not a rank|src 3 is not a rank"):
            dist.broadcast(ember.zeros(3), src=3)
        with pytest.raises(ValueError, match="AVG needs a floating-point tensor"):
            dist.all_reduce(ember.zeros(3, dtype=ember.int64), op=dist.ReduceOp.AVG)
        with pytest.raises(TypeError, match="Expected parameter `tensor` of type ember.Tensor"):
            dist.all_reduce([1, 2])
        with pytest.raises(ValueError, match="twice"):
            dist.init_process_group("gloo", store=store, rank=0, world_size=1)
        t = ember.arange(4.0)
        dist.all_reduce(t)
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
        assert dist.get_rank() == 0 and dist.get_world_size() == 1 and dist.get_backend() == "gloo"
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_rank()


def test_an_unknown_engine_is_named():
    with pytest.raises(ValueError, match=r"no collective engine 'mpi' is loaded \(engines loaded: gloo\)"):
        dist.init_process_group("mpi", store=dist.HashStore(), rank=0, world_size=1)
    assert not dist.is_initialized()


def single_process_params(steps=12):
    sys.path.insert(0, os.path.dirname(WORKER))
    try:
        import worker
    finally:
        sys.path.pop(0)
    return worker.train(worker.make_mlp(seed=0), world=1, rank=0, steps=steps)


@pytest.mark.parametrize("world,mode", [(2, "plain"), (4, "plain"), (2, "small_buckets"), (2, "bucket_view"),
                                        (2, "no_sync")])
def test_ddp_ranks_agree_bitwise_and_match_one_process(tmp_path, world, mode):
    import numpy as np
    reports, codes = run_ranks(tmp_path, "ddp", world, mode, timeout=180)
    for report in reports:
        assert report.get("ok"), report
    for report in reports[1:]:
        assert report["params"] == reports[0]["params"], "ranks differ"
    if mode == "small_buckets":
        assert reports[0]["buckets"] > 1
    reference = single_process_params()
    for got, want in zip(reports[0]["params"], reference):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-5)


@pytest.mark.parametrize("hook,tolerance", [("allreduce_hook", 1e-5), ("fp16_hook", 2e-3)])
def test_ddp_communication_hooks(tmp_path, hook, tolerance):
    import numpy as np
    reports, codes = run_ranks(tmp_path, "ddp", 2, hook, timeout=180)
    for report in reports:
        assert report.get("ok"), report
        assert report["second_registration"] == ("register_comm_hook or register_builtin_comm_hook can only be "
                                                 "called once.")
    for report in reports[1:]:
        assert report["params"] == reports[0]["params"], "ranks differ"
    buckets = reports[0]["first_buckets_seen"]
    assert [b[0] for b in buckets] == list(range(len(buckets)))
    assert [b[1] for b in buckets] == [i == len(buckets) - 1 for i in range(len(buckets))]
    assert all(b[2] == b[3] > 0 for b in buckets)
    for got, want in zip(reports[0]["params"], single_process_params()):
        np.testing.assert_allclose(got, want, rtol=0, atol=tolerance)


def test_zero_redundancy_optimizer_matches_a_plain_one(tmp_path):
    reports, codes = run_ranks(tmp_path, "zero", 2, timeout=180)
    for report in reports:
        assert report.get("ok"), report
        assert report["same_params"] and report["resumed_matches"]
    assert reports[0]["owners"] == reports[1]["owners"] and set(reports[0]["owners"]) == {0, 1}
    assert reports[0]["same_state"] and reports[0]["lr"] == 1e-2 * 0.25
    assert "consolidate_state_dict(to=1)" in reports[1]["unconsolidated"]


def test_a_blocking_collective_waits_behind_queued_asynchronous_ones(tmp_path):
    reports, codes = run_ranks(tmp_path, "mixed", 2)
    for report in reports:
        assert report.get("ok"), report
        assert report["small"] == [1.0] * 4
        assert report["large"] == [1.0, 3.0, 5.0] * 2
        assert report["again"] == [2.0] * 4


def test_ddp_names_unused_parameters_and_leaves_their_gradients_none(tmp_path):
    reports, codes = run_ranks(tmp_path, "ddp", 2, "unused")
    for report in reports:
        assert report.get("ok"), report
        assert "unused.weight" in report["error"] and "unused.bias" in report["error"], report["error"]
        assert "find_unused_parameters=True" in report["error"]
        assert report["tolerant_grad"] != 0.0
        # No rank used it: its gradient stays None, as torch leaves it.
        assert report["unused_grad_is_none"] is True


def test_the_ddp_sample_trains_under_ember_run(tmp_path):
    pytest.importorskip("sklearn", reason="the digits come from scikit-learn")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "2",
                             os.path.join(root, "samples", "train_digits_ddp.py"), "--epochs", "4",
                             "--min-accuracy", "0.8"], capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "parameters identical across ranks: True" in result.stdout


def test_xpu_tensors_are_staged_through_host_memory(tmp_path):
    """The xpu plugin has no native handles: its tensors go through Gloo by
    host staging."""
    import pathlib
    import ember
    plugin = pathlib.Path(ember._C.__file__).resolve().parents[2] / "plugins" / "xpu" / "libember_plugin_xpu.so"
    if not plugin.exists():
        pytest.skip(f"the xpu plugin is not built ({plugin} is missing)")
    reports, codes = run_ranks(tmp_path, "staged", 2, "xpu", env={"EMBER_PLUGIN_PATH": str(plugin.parent)})
    for report in reports:
        assert report.get("ok"), report
        assert report["sum"] == [3.0, 3.0, 3.0] and report["device"].startswith("xpu"), report


def test_post_accumulate_grad_hooks_and_backward_callbacks_run_in_order():
    import ember
    events = []
    w = ember.ones(3, requires_grad=True)
    handle = w.register_post_accumulate_grad_hook(lambda p: events.append(("hook", p.grad.tolist())))

    def first_hook(p):
        ember._C._queue_callback(lambda: events.append(("callback", w.grad.tolist())))

    second = w.register_post_accumulate_grad_hook(first_hook)
    (w * 2).sum().backward()
    assert events == [("hook", [2.0, 2.0, 2.0]), ("callback", [2.0, 2.0, 2.0])]
    handle.remove()
    second.remove()
    (w * 2).sum().backward()
    assert len(events) == 2
    with pytest.raises(RuntimeError, match="only be called during the backward pass"):
        ember._C._queue_callback(lambda: None)
    with pytest.raises(RuntimeError, match="non-leaf"):
        (w * 2).register_post_accumulate_grad_hook(lambda p: None)


def test_a_resumed_run_equals_an_uninterrupted_one_bitwise(tmp_path):
    checkpoint = tmp_path / "checkpoint.safetensors"
    straight, _ = run_ranks(tmp_path / "straight", "resume", 2, f"straight:{checkpoint}")
    _, codes = run_ranks(tmp_path / "killed", "resume", 2, f"kill:{checkpoint}")
    assert codes == [-9, -9] and checkpoint.exists()
    resumed, _ = run_ranks(tmp_path / "resumed", "resume", 2, f"resume:{checkpoint}")
    for a, b in zip(straight, resumed):
        assert a.get("ok") and b.get("ok"), (a, b)
        assert a["params"] == b["params"]
