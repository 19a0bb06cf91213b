"""ember.distributed's object collectives across processes on this machine:
each at worlds of 2 and 3 ranks with objects of different sizes per rank
(an empty string, nested dicts, tensors), a non-zero root, a subgroup, and
torch's argument errors. One start of the ranks per world serves every
case (the "objects" scenario of distributed/worker.py)."""

import os
import sys

import pytest

import ember.distributed as dist
from test_distributed_collectives import WORKER, run_ranks

sys.path.insert(0, os.path.dirname(WORKER))
from worker import plain, rank_object  # noqa: E402

sys.path.pop(0)

pytestmark = pytest.mark.skipif(not dist.is_gloo_available(), reason="the gloo plugin is not built")

ARANGE_2X3 = {"tensor": [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], "dtype": "ember.float32", "requires_grad": False,
              "parameter": False}
PARAMETER = {"tensor": [1.0, 1.0], "dtype": "ember.float32", "requires_grad": True, "parameter": True}


@pytest.fixture(scope="module", params=[2, 3], ids=["world2", "world3"])
def reports(request, tmp_path_factory):
    world = request.param
    reports, codes = run_ranks(tmp_path_factory.mktemp(f"objects{world}"), "objects", world, timeout=120)
    for report in reports:
        assert report.get("ok"), report
    assert codes == [0] * world
    return reports


def sent(world):
    return [plain(rank_object(r)) for r in range(world)]


def test_the_objects_differ_in_size_and_hold_tensors():
    assert rank_object(0) == ""
    assert plain(rank_object(1))["tensor"] == ARANGE_2X3
    assert plain(rank_object(2)) == [PARAMETER, {"rank": 2}]


def test_all_gather_object_gives_every_rank_every_object(reports):
    for report in reports:
        assert report["results"]["all_gather"] == sent(len(reports))
        assert report["results"]["all_gather"][1]["nested"] == {"deeper": {"numbers": [1, 2.5, None, True]}}


def test_gather_object_fills_the_list_on_the_destination_only(reports):
    world = len(reports)
    for rank, report in enumerate(reports):
        assert report["results"]["gather"] == (sent(world) if rank == world - 1 else None)
        assert report["results"]["gather_default"] == (sent(world) if rank == 0 else None)


def test_broadcast_object_list_copies_the_source_list(reports):
    world = len(reports)
    for report in reports:
        assert report["results"]["broadcast"] == sent(world)
        assert report["results"]["broadcast_default"] == ["from zero", {}]
        assert report["results"]["broadcast_empty"] == []


def test_scatter_object_list_gives_each_rank_its_object(reports):
    for rank, report in enumerate(reports):
        assert report["results"]["scatter"] == [plain(rank_object(rank))]


def test_a_computed_tensor_arrives_as_a_leaf_that_requires_grad(reports):
    world = len(reports)
    for report in reports:
        assert report["results"]["computed"] == [
            {"tensor": [float(r + 2)], "dtype": "ember.float32", "requires_grad": True, "parameter": False}
            for r in range(world)] + [True]


def test_recv_object_list_returns_the_sender(reports):
    world = len(reports)
    first, last = reports[0]["results"], reports[-1]["results"]
    assert first["recv_sender"] == world - 1
    assert first["recv"] == [plain(rank_object(world - 1)), "", {"n": {"m": 1}}]
    assert last["recv_sender"] == 0
    assert last["recv"] == [plain(rank_object(world - 1))]


def test_a_subgroup_counts_its_own_ranks(reports):
    world = len(reports)
    members = range(1, world)
    for rank in members:
        results = reports[rank]["results"]
        assert results["sub_all_gather"] == [plain(rank_object(r)) for r in members]
        assert results["sub_gather"] == ([plain(rank_object(r)) for r in members] if rank == 1 else None)
        assert results["sub_broadcast"] == [plain(rank_object(world - 1))]
        assert results["sub_scatter"] == [f"to {rank}"]


def test_a_rank_outside_the_group_is_warned_and_left_alone(reports):
    results = reports[0]["results"]
    assert results["outsider"] == ["untouched"]
    assert results["outsider_recv"] == -1
    assert results["outsider_warnings"] == [
        f"Running {name} on global rank 0 which does not belong to the given group."
        for name in ("all_gather_object", "recv_object_list")]


def test_bad_arguments_raise_torchs_errors(reports):
    world = len(reports)
    root, other = reports[0]["errors"], reports[1]["errors"]
    assert root["gather_none"] == "ValueError: Argument ``gather_list`` must be specified on destination rank."
    assert root["gather_empty"] == root["gather_none"]
    assert other["gather_list_off_root"] == (
        "ValueError: Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    assert root["scatter_input_none"] == "ValueError: source rank must provide non-None scatter_object_input_list"
    assert root["scatter_input_length"] == (
        f"ValueError: scatter_object_list: the source's scatter_object_input_list has {world + 1} objects for a "
        f"group of {world} ranks")
    assert root["send_self"] == ("ValueError: Invalid destination rank: destination rank should not be the same "
                                 "as the rank of the current process.")
    assert root["recv_self"] == ("ValueError: Invalid source rank: source rank should not be the same as the "
                                 "rank of the current process.")
    for report in reports:
        errors = report["errors"]
        for output in ("scatter_output_empty", "scatter_output_tuple"):
            assert errors[output] == (
                "ValueError: Expected argument scatter_object_output_list to be a list of size at least 1.")
        assert errors["send_no_dst"] == "ValueError: Must specify global_rank or group_rank"
        assert errors["both_roots"] == "ValueError: Can't specify both group_rank and global_rank"
        assert errors["root_outside"].startswith(f"ValueError: src {world + 5} is not a rank of the group")


def test_errors_inside_the_tensor_collectives_leave_the_group_usable(reports):
    world = len(reports)
    # As in torch, a too-short list on the destination fails once the bytes
    # arrived, so the other ranks' gathers complete.
    assert reports[0]["errors"]["gather_short"] == "IndexError: list assignment index out of range"
    for report in reports[1:]:
        assert report["errors"]["gather_short"] is None
    for report in reports:
        error = report["errors"]["broadcast_lengths"]
        assert error.startswith("DistBackendError") and "rank 0 called" in error and "rank 1 called" in error, error
        assert report["results"]["after_errors"] == list(range(world))
