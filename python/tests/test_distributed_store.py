"""ember.distributed's stores from Python (torch.distributed's API: values in
as str or bytes and out as bytes, timeouts as timedelta), shared across
processes, and rendezvous for each init method."""

import datetime
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import ember.distributed as dist

SECOND = datetime.timedelta(seconds=1)


def tcp_master(**kwargs):
    return dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False, timeout=5 * SECOND, **kwargs)


def run_workers(code, count, *args):
    """Runs `code` in `count` processes (argv: rank, then args); returns their outputs."""
    processes = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), str(rank), *map(str, args)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for rank in range(count)]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err
        results.append(out)
    return results


def test_exports_and_error_hierarchy():
    assert dist.is_available()
    assert issubclass(dist.DistStoreError, dist.DistError)
    assert issubclass(dist.DistBackendError, dist.DistError)
    assert issubclass(dist.DistError, RuntimeError)
    for cls in (dist.HashStore, dist.FileStore, dist.PrefixStore, dist.TCPStore):
        assert issubclass(cls, dist.Store)


@pytest.fixture(params=["HashStore", "FileStore", "PrefixStore", "TCPStore"])
def store(request, tmp_path):
    if request.param == "HashStore":
        return dist.HashStore()
    if request.param == "FileStore":
        return dist.FileStore(str(tmp_path / "store"), 1)
    if request.param == "PrefixStore":
        return dist.PrefixStore("job", dist.HashStore())
    return tcp_master()


def test_values_in_as_str_or_bytes_out_as_bytes(store):
    store.set("text", "héllo")
    store.set("binary", b"\x00\xff")
    store.set("array", bytearray(b"ab"))
    assert store.get("text") == "héllo".encode()
    assert store.get("binary") == b"\x00\xff"
    assert store.get("array") == b"ab"
    with pytest.raises(TypeError, match="Store.set: value must be str or bytes, got int"):
        store.set("bad", 3)


def test_add_compare_set_check_delete_num_keys(store):
    assert store.add("counter", 3) == 3
    assert store.add("counter", -1) == 2
    assert store.get("counter") == b"2"
    assert store.compare_set("cas", "wrong", "new") == b"wrong"
    assert store.compare_set("cas", "", "first") == b"first"
    assert store.compare_set("cas", b"first", "second") == b"second"
    assert store.check(["counter", "cas"])
    assert not store.check(["counter", "absent"])
    assert store.num_keys() == 2
    assert store.delete_key("cas")
    assert not store.delete_key("cas")
    assert store.num_keys() == 1
    store.set("word", "x")
    with pytest.raises(dist.DistStoreError, match="not a decimal integer"):
        store.add("word", 1)


def test_timeouts_are_timedeltas_and_name_the_keys(store):
    store.set_timeout(datetime.timedelta(milliseconds=300))
    assert store.timeout == datetime.timedelta(milliseconds=300)
    start = time.monotonic()
    with pytest.raises(dist.DistStoreError, match=r"missing'\].*timed out after 300 ms"):
        store.get("missing")
    assert 0.27 <= time.monotonic() - start <= 0.5
    with pytest.raises(dist.DistStoreError, match=r"a', '.*b'\].*timed out after 200 ms"):
        store.wait(["a", "b"], datetime.timedelta(milliseconds=200))
    with pytest.raises(TypeError, match="Store.wait: timeout must be a datetime.timedelta, got int"):
        store.wait(["a"], 5)


def test_waiting_releases_the_gil(store):
    def later():
        time.sleep(0.05)
        store.set("late", "v")

    setter = threading.Thread(target=later)
    setter.start()
    store.wait(["late"], 5 * SECOND)
    setter.join()
    assert store.get("late") == b"v"


def test_prefix_store_keys_live_under_the_prefix():
    base = dist.HashStore()
    prefixed = dist.PrefixStore("group", base)
    prefixed.set("key", "v")
    assert base.get("group/key") == b"v"
    assert prefixed.underlying_store is not None


def test_tcp_store_constructor_arguments():
    master = dist.TCPStore(host_name="127.0.0.1", port=0, world_size=2, is_master=True,
                           timeout=datetime.timedelta(seconds=2), wait_for_workers=False)
    assert master.port > 0 and master.host == "127.0.0.1"
    client = dist.TCPStore("127.0.0.1", master.port, 2, False, timeout=2 * SECOND)
    client.set("k", "v")
    assert master.get("k") == b"v"
    assert client.timeout == 2 * SECOND
    with pytest.raises(ValueError, match="port must be in"):
        dist.TCPStore("127.0.0.1", 70000, is_master=True)


def test_tcp_store_port_in_use_names_host_and_port():
    master = tcp_master()
    with pytest.raises(dist.DistStoreError, match=f"127.0.0.1:{master.port}: Address already in use"):
        dist.TCPStore("127.0.0.1", master.port, is_master=True, wait_for_workers=False)


def test_tcp_store_client_without_server_gives_up_after_the_timeout():
    port = tcp_master().port  # Free again once that store is gone.
    start = time.monotonic()
    with pytest.raises(dist.DistStoreError, match=f"could not connect to 127.0.0.1:{port} after trying for"):
        dist.TCPStore("127.0.0.1", port, timeout=datetime.timedelta(milliseconds=400))
    assert 0.35 <= time.monotonic() - start <= 1.5


def test_tcp_store_across_processes():
    master = dist.TCPStore("127.0.0.1", 0, world_size=4, is_master=True, timeout=10 * SECOND,
                           wait_for_workers=False)
    outputs = run_workers("""
        import datetime, sys
        import ember.distributed as dist
        rank, port = int(sys.argv[1]), int(sys.argv[2])
        store = dist.TCPStore("127.0.0.1", port, 4, False, timeout=datetime.timedelta(seconds=10))
        store.set(f"rank{rank}", str(rank * 10))
        for _ in range(10):
            store.add("total", 1)
        store.wait([f"rank{r}" for r in range(3)])
        print(store.get(f"rank{(rank + 1) % 3}").decode())
    """, 3, master.port)
    assert [out.strip() for out in outputs] == ["10", "20", "0"]
    assert master.add("total", 0) == 30


def test_file_store_across_processes(tmp_path):
    path = tmp_path / "shared"
    run_workers("""
        import sys
        import ember.distributed as dist
        rank, path = int(sys.argv[1]), sys.argv[2]
        store = dist.FileStore(path, 3)
        for _ in range(20):
            store.add("total", 1)
        store.set(f"done{rank}", "1")
        store.wait(["done0", "done1", "done2"])
        assert store.get("total") == b"60", store.get("total")
    """, 3, path)
    # The last of the three users removed the file.
    assert not path.exists()


def test_file_store_refuses_more_users_than_world_size(tmp_path):
    path = str(tmp_path / "full")
    first = dist.FileStore(path, 1)
    with pytest.raises(dist.DistStoreError, match="already has its world_size of 1 users"):
        dist.FileStore(path, 1)
    first.set("still", "works")
    assert first.get("still") == b"works"


# rendezvous ------------------------------------------------------------------


def test_rendezvous_tcp_and_file(tmp_path):
    master, rank, world_size = dist.rendezvous("tcp://127.0.0.1:0?rank=0&world_size=1", timeout=5 * SECOND)
    assert (rank, world_size) == (0, 1)
    master.set("k", "v")
    client, rank, world_size = dist.rendezvous(f"tcp://127.0.0.1:{master.port}", rank=1, world_size=2,
                                               timeout=5 * SECOND)
    assert (rank, world_size) == (1, 2) and client.get("k") == b"v"

    store, rank, world_size = dist.rendezvous(f"file://{tmp_path / 'rdzv'}?rank=0&world_size=1", timeout=SECOND)
    assert (rank, world_size) == (0, 1) and store.timeout == SECOND
    store.set("k", "v")
    assert store.get("k") == b"v"


def test_rendezvous_env_across_processes():
    port = tcp_master().port  # A free port for rank 0 to host on.
    outputs = run_workers("""
        import datetime, os, sys
        import ember.distributed as dist
        os.environ.update(RANK=sys.argv[1], WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[2])
        store, rank, world_size = dist.rendezvous("env://", timeout=datetime.timedelta(seconds=10))
        store.set(f"hello{rank}", "x")
        store.wait(["hello0", "hello1"])
        print(type(store).__name__, rank, world_size)
    """, 2, port)
    assert [out.split() for out in outputs] == [["TCPStore", "0", "2"], ["TCPStore", "1", "2"]]


def test_rendezvous_env_with_a_hosted_store_is_a_prefixed_client(monkeypatch):
    hosted = tcp_master()
    monkeypatch.setenv("EMBER_STORE_HOSTED", "1")
    monkeypatch.setenv("EMBER_RESTART_COUNT", "2")
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(hosted.port))
    store, rank, world_size = dist.rendezvous("env://", rank=0, world_size=1, timeout=2 * SECOND)
    assert isinstance(store, dist.PrefixStore) and (rank, world_size) == (0, 1)
    store.set("key", "v")
    assert hosted.get("/worker/attempt_2/key") == b"v"


@pytest.mark.parametrize("missing", ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"])
def test_rendezvous_env_names_a_missing_variable(monkeypatch, missing):
    for name, value in {"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "1"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(missing)
    with pytest.raises(ValueError, match=f"env:// rendezvous: environment variable {missing} expected, but not set"):
        dist.rendezvous("env://")


def test_rendezvous_errors():
    with pytest.raises(ValueError, match="tcp:// rendezvous: rank parameter missing"):
        dist.rendezvous("tcp://127.0.0.1:1234")
    with pytest.raises(ValueError, match="tcp:// rendezvous: port number missing"):
        dist.rendezvous("tcp://127.0.0.1?rank=0&world_size=1")
    with pytest.raises(ValueError, match="file:// rendezvous: world size parameter missing"):
        dist.rendezvous("file:///tmp/x?rank=0")
    with pytest.raises(ValueError, match="has node-specific arguments"):
        dist.rendezvous("tcp://127.0.0.1:1?rank=0&world_size=1", rank=0)
    with pytest.raises(ValueError, match="rank 3 is out of range for world_size 2"):
        dist.rendezvous("tcp://127.0.0.1:1", rank=3, world_size=2)
    with pytest.raises(RuntimeError, match="No rendezvous handler for nope://"):
        dist.rendezvous("nope://x")
