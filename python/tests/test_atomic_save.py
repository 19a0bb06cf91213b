"""ember.save(obj, path) replaces the file whole or not at all: a write that
fails or is killed half way leaves the previous file as it was."""

import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

import ember

resource = pytest.importorskip("resource", reason="file-size limits (RLIMIT_FSIZE) need a POSIX system")


def previous_good_file(tmp_path):
    path = tmp_path / "weights.safetensors"
    ember.save({"w": ember.arange(16.0)}, path)
    return path, path.read_bytes()


def assert_only(tmp_path, *names):
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)


def save_under_a_file_size_limit(path, ignore_the_signal):
    """Saves 4 MiB to ``path`` in a child process whose files may not grow
    past 64 KiB: the kernel refuses the write (EFBIG) where the child ignores
    SIGXFSZ (Python's default), and kills the child mid-write where the
    signal has its default action."""
    code = f"""
        import resource, signal, sys
        import ember
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN if {ignore_the_signal} else signal.SIG_DFL)
        big = {{"w": ember.ones(1024, 1024)}}
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        try:
            ember.save(big, sys.argv[1])
        except OSError as error:
            print("refused:", error.errno, error)
    """
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), str(path)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))


def test_a_write_the_file_size_limit_refuses_leaves_the_previous_file(tmp_path):
    path, before = previous_good_file(tmp_path)
    result = save_under_a_file_size_limit(path, ignore_the_signal=True)
    assert result.returncode == 0 and f"refused: {errno.EFBIG}" in result.stdout, result.stderr
    assert f"save: cannot write '{path}': File too large" in result.stdout
    assert path.read_bytes() == before
    assert_only(tmp_path, path.name)


def test_a_save_killed_mid_write_leaves_the_previous_file(tmp_path):
    path, before = previous_good_file(tmp_path)
    result = save_under_a_file_size_limit(path, ignore_the_signal=False)
    assert result.returncode == -signal.SIGXFSZ, result.stderr
    assert path.read_bytes() == before
    # Nothing can clean up after SIGXFSZ or SIGKILL: at most the hidden temporary remains.
    leftovers = [p.name for p in tmp_path.iterdir() if p != path]
    assert all(name.startswith(f".{path.name}.") and name.endswith(".tmp") for name in leftovers), leftovers


def test_an_error_during_save_removes_the_temporary(tmp_path, monkeypatch):
    path, before = previous_good_file(tmp_path)
    tensor_bytes = ember._C._tensor_bytes
    calls = []

    def fail_on_the_second_tensor(tensor):
        calls.append(tensor)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return tensor_bytes(tensor)

    monkeypatch.setattr(ember._C, "_tensor_bytes", fail_on_the_second_tensor)
    with pytest.raises(KeyboardInterrupt):
        ember.save({"a": ember.zeros(4), "b": ember.zeros(4)}, path)
    assert path.read_bytes() == before
    assert_only(tmp_path, path.name)


def test_save_syncs_the_data_before_it_renames(tmp_path, monkeypatch):
    path = tmp_path / "weights.safetensors"
    events = []
    fsync, replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: events.append("fsync") or fsync(fd))
    monkeypatch.setattr(os, "replace", lambda src, dst: events.append(("replace", dst)) or replace(src, dst))
    ember.save({"w": ember.ones(3)}, path)
    assert events[:2] == ["fsync", ("replace", str(path))]
    assert ember.load(path)["w"].tolist() == [1.0, 1.0, 1.0]


def test_a_new_file_gets_the_umask_mode_and_an_old_one_keeps_its_own(tmp_path):
    path = tmp_path / "new.safetensors"
    old_umask = os.umask(0o027)
    try:
        ember.save({"w": ember.ones(1)}, path)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    path.chmod(0o604)
    ember.save({"w": ember.zeros(1)}, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o604
    assert ember.load(path)["w"].tolist() == [0.0]


def test_save_writes_through_a_symbolic_link(tmp_path):
    real = tmp_path / "real.safetensors"
    link = tmp_path / "link.safetensors"
    ember.save({"w": ember.ones(1)}, real)
    link.symlink_to(real)
    ember.save({"w": ember.full((2,), 5.0)}, link)
    assert link.is_symlink() and ember.load(real)["w"].tolist() == [5.0, 5.0]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write any file")
def test_save_refuses_a_file_the_user_may_not_write(tmp_path):
    path, before = previous_good_file(tmp_path)
    path.chmod(0o444)
    with pytest.raises(PermissionError, match="weights.safetensors"):
        ember.save({"w": ember.ones(1)}, path)
    assert path.read_bytes() == before
    assert_only(tmp_path, path.name)


def test_a_save_killed_by_sigkill_leaves_a_loadable_file_and_the_next_save_removes_its_temporary(tmp_path):
    """A child saves 64 MiB state dicts in a loop and is killed (SIGKILL, which
    nothing can catch) while a temporary is being written: the file holds one
    whole save, and the next save removes what the killed writer left."""
    path = tmp_path / "weights.safetensors"
    ember.save({"w": ember.zeros(4)}, path)
    code = """
        import sys
        import ember
        for step in range(1, 1000):
            ember.save({"w": ember.full((4096, 4096), float(step))}, sys.argv[1])
            print("saved", step, flush=True)
    """
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), str(path)], stdout=subprocess.PIPE,
                             text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    try:
        assert child.stdout.readline().split() == ["saved", "1"]
        deadline = time.monotonic() + 60
        while not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]:
            assert time.monotonic() < deadline and child.poll() is None, "the child never wrote a temporary"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        child.kill()
        child.stdout.close()
    (leftover,) = [p.name for p in tmp_path.iterdir() if p != path]
    assert leftover.startswith(f".{path.name}.") and leftover.endswith(".tmp")
    w = ember.load(path)["w"]
    assert w.shape == (4096, 4096) and w.min().item() == w.max().item() >= 1.0  # one whole save
    ember.save({"w": ember.ones(2)}, path)
    assert_only(tmp_path, path.name)
    assert ember.load(path)["w"].tolist() == [1.0, 1.0]


def test_save_leaves_the_temporary_of_a_live_writer_and_files_not_its_own(tmp_path):
    fcntl = pytest.importorskip("fcntl", reason="removing abandoned temporaries needs flock (POSIX)")
    path, _ = previous_good_file(tmp_path)
    live = tmp_path / f".{path.name}.0123456789abcdef.tmp"
    unrelated = [tmp_path / f".{path.name}.backup.tmp", tmp_path / f".other.safetensors.0123456789abcdef.tmp"]
    for p in [live, *unrelated]:
        p.write_bytes(b"partial")
    with open(live, "rb") as writer:
        fcntl.flock(writer, fcntl.LOCK_EX)  # as a writer in another process holds it
        ember.save({"w": ember.ones(1)}, path)
        assert live.exists()
    ember.save({"w": ember.ones(1)}, path)
    assert_only(tmp_path, path.name, *(p.name for p in unrelated))
