"""ember-run, the launcher (ember.distributed.run), with tiny worker scripts:
the variables each worker gets, gang failure with the failing rank named,
no surviving processes, restarts, signals, and stores that never mix."""

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest


def alive(pid):
    """Whether `pid` runs (a zombie waiting for its reaper counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_until_dead(pids, within=3.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and any(alive(pid) for pid in pids):
        time.sleep(0.02)
    return [pid for pid in pids if alive(pid)]


# A pid file appears whole or not at all: the test polls for it while the worker may still be writing, or be
# killed half way.
PUBLISH_PID = """
def publish_pid(name, pid):
    partial = out / (name + ".partial")
    partial.write_text(str(pid))
    os.replace(partial, out / name)
"""


def write_worker(tmp_path, body, name="worker.py"):
    script = tmp_path / name
    script.write_text("import json, os, pathlib, signal, subprocess, sys, time\n"
                      "import ember.distributed as dist\n"
                      "out = pathlib.Path(sys.argv[1])\n"
                      "rank = int(os.environ['RANK'])\n" + PUBLISH_PID + textwrap.dedent(body))
    return script


def launcher(*args):
    return [sys.executable, "-m", "ember.distributed.run", *map(str, args)]


def run_launcher(*args, env=None, timeout=60):
    return subprocess.run(launcher(*args), capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def read_pids(folder, pattern="*.pid"):
    return [int(path.read_text()) for path in sorted(folder.glob(pattern))]


WRITE_ENVIRONMENT = """
    names = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT",
             "OMP_NUM_THREADS", "EMBER_STORE_HOSTED", "EMBER_ERROR_FILE", "EMBER_RESTART_COUNT"]
    store, _, world_size = dist.rendezvous("env://")
    store.set(f"here{rank}", str(os.getpid()))
    store.wait([f"here{r}" for r in range(world_size)])
    (out / f"{rank}.json").write_text(json.dumps({name: os.environ.get(name) for name in names}))
"""


@pytest.mark.parametrize("nproc", [1, 3])
def test_workers_get_torchrun_variables_and_reach_the_hosted_store(tmp_path, nproc):
    script = write_worker(tmp_path, WRITE_ENVIRONMENT)
    result = run_launcher("--nproc-per-node", nproc, script, tmp_path)
    assert result.returncode == 0, result.stderr
    seen = [json.loads((tmp_path / f"{rank}.json").read_text()) for rank in range(nproc)]
    for rank, variables in enumerate(seen):
        assert variables["RANK"] == variables["LOCAL_RANK"] == str(rank)
        assert variables["WORLD_SIZE"] == variables["LOCAL_WORLD_SIZE"] == str(nproc)
        assert variables["GROUP_RANK"] == "0" and variables["MASTER_ADDR"] == "127.0.0.1"
        assert variables["OMP_NUM_THREADS"] == "1" and variables["EMBER_STORE_HOSTED"] == "1"
        assert variables["EMBER_RESTART_COUNT"] == "0"
        assert variables["EMBER_ERROR_FILE"].endswith(f"rank_{rank}.json")
    assert len({variables["MASTER_PORT"] for variables in seen}) == 1
    assert int(seen[0]["MASTER_PORT"]) > 0


def test_a_preset_omp_num_threads_is_kept_and_modules_run_with_dash_m(tmp_path):
    write_worker(tmp_path, WRITE_ENVIRONMENT, name="env_worker.py")
    result = run_launcher("--nproc_per_node", 1, "-m", "env_worker", tmp_path,
                          env={"OMP_NUM_THREADS": "3", "PYTHONPATH": f"{tmp_path}:{os.environ.get('PYTHONPATH', '')}"})
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "0.json").read_text())["OMP_NUM_THREADS"] == "3"


def test_a_raising_worker_fails_the_launcher_naming_rank_and_exception(tmp_path):
    script = write_worker(tmp_path, """
        if rank == 1:
            raise ValueError(f"boom at rank {rank}")
    """)
    result = run_launcher("--nproc-per-node", 2, script, tmp_path)
    assert result.returncode != 0
    assert "worker local_rank 1 (rank 1" in result.stderr and "exited with code 1" in result.stderr
    assert "ValueError: boom at rank 1" in result.stderr


def test_a_worker_killed_by_a_signal_is_named(tmp_path):
    script = write_worker(tmp_path, "os.kill(os.getpid(), signal.SIGKILL)\n")
    result = run_launcher(script, tmp_path)
    assert result.returncode != 0
    assert "worker local_rank 0 (rank 0" in result.stderr and "was killed by signal SIGKILL" in result.stderr


def test_a_stalled_gang_is_stopped_when_one_fails_and_nothing_survives(tmp_path):
    script = write_worker(tmp_path, """
        if rank == 1:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # Needs the SIGKILL after --kill-timeout.
        publish_pid(f"{rank}.pid", os.getpid())
        if rank == 0:
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            publish_pid("grandchild.pid", child.pid)
            time.sleep(60)
        if rank == 1:
            time.sleep(60)
        while not ((out / "grandchild.pid").exists() and (out / "1.pid").exists()):
            time.sleep(0.01)
        sys.exit(3)
    """)
    start = time.monotonic()
    result = run_launcher("--nproc-per-node", 3, "--kill-timeout", 0.5, script, tmp_path)
    took = time.monotonic() - start
    assert result.returncode != 0
    assert "worker local_rank 2 (rank 2" in result.stderr and "exited with code 3" in result.stderr
    pids = read_pids(tmp_path)
    assert len(pids) == 4
    assert wait_until_dead(pids) == []
    assert took < 10


def test_max_restarts_reruns_the_gang_once(tmp_path):
    script = write_worker(tmp_path, """
        attempt = os.environ["EMBER_RESTART_COUNT"]
        (out / f"attempt{attempt}_rank{rank}").write_text("")
        store, _, _ = dist.rendezvous("env://")
        # A fresh prefix per attempt: no key of the failed attempt is seen.
        assert not store.check(["failed"]), "a key of the previous attempt"
        store.set(f"started{rank}", "")
        store.wait(["started0", "started1"])
        if attempt == "0" and rank == 0:
            store.set("failed", "1")
            sys.exit(1)
    """)
    result = run_launcher("--nproc-per-node", 2, "--max-restarts", 1, script, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "restarting the workers (1 of 1 restarts)" in result.stderr
    assert sorted(p.name for p in tmp_path.glob("attempt*")) == [
        "attempt0_rank0", "attempt0_rank1", "attempt1_rank0", "attempt1_rank1"]


def test_two_launchers_at_once_never_share_a_store(tmp_path):
    script = write_worker(tmp_path, """
        store, _, world_size = dist.rendezvous("env://")
        store.add("members", 1)
        store.set(f"joined{rank}", "")
        store.wait([f"joined{r}" for r in range(world_size)])
        (out / f"{rank}.txt").write_text(f"{os.environ['MASTER_PORT']} {store.add('members', 0)}")
    """)
    folders = [tmp_path / "a", tmp_path / "b"]
    for folder in folders:
        folder.mkdir()
    jobs = [subprocess.Popen(launcher("--nproc-per-node", 2, script, folder), stderr=subprocess.PIPE, text=True)
            for folder in folders]
    for job in jobs:
        assert job.wait(timeout=60) == 0, job.stderr.read()
    seen = [[(folder / f"{rank}.txt").read_text().split() for rank in range(2)] for folder in folders]
    ports = {line[0] for job in seen for line in job}
    assert len(ports) == 2
    assert all(line[1] == "2" for job in seen for line in job)


def test_an_occupied_master_port_is_named(tmp_path):
    occupied = socket.socket()
    occupied.bind(("127.0.0.1", 0))
    occupied.listen()
    port = occupied.getsockname()[1]
    script = write_worker(tmp_path, "")
    result = run_launcher("--master-port", port, script, tmp_path)
    occupied.close()
    assert result.returncode != 0
    assert f"cannot host the store at 127.0.0.1:{port}" in result.stderr
    assert "Address already in use" in result.stderr


def _start_sleeping_gang(tmp_path, nproc):
    script = write_worker(tmp_path, """
        publish_pid(f"{rank}.pid", os.getpid())
        time.sleep(60)
    """)
    job = subprocess.Popen(launcher("--nproc-per-node", nproc, script, tmp_path), stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(list(tmp_path.glob("*.pid"))) < nproc and time.monotonic() < deadline:
        time.sleep(0.02)
    return job, read_pids(tmp_path)


def test_sigterm_to_the_launcher_reaches_the_workers(tmp_path):
    job, pids = _start_sleeping_gang(tmp_path, 2)
    assert len(pids) == 2
    job.send_signal(signal.SIGTERM)
    assert job.wait(timeout=10) == 128 + signal.SIGTERM
    assert "received SIGTERM" in job.stderr.read()
    assert wait_until_dead(pids) == []


def test_a_killed_launcher_leaves_no_orphans(tmp_path):
    job, pids = _start_sleeping_gang(tmp_path, 2)
    assert len(pids) == 2
    job.kill()
    job.wait(timeout=10)
    assert wait_until_dead(pids) == []


def test_bad_flags_are_usage_errors(tmp_path):
    result = run_launcher("--nproc-per-node", "many", "x.py")
    assert result.returncode == 2 and "expected an int, 'cpu' or 'auto'" in result.stderr
    result = run_launcher("--nnodes", 2, "--node-rank", 1, "x.py")
    assert result.returncode == 2 and "--master-port is needed" in result.stderr
