"""expected_failures/<device type>.txt (Note [Expected failures per device]):
this folder's conftest on a small suite of its own, run on each device."""

import os
import pathlib
import shutil
import subprocess
import sys

import ember

CONFTEST = pathlib.Path(__file__).with_name("conftest.py")

SUITE = '''
def test_lacks_kernel(device):
    raise NotImplementedError(f"frob: no kernel for dtype float32 on {device}")

def test_lacks_kernel_unlisted(device):
    raise NotImplementedError(f"frob: no kernel for dtype int64 on {device}")

def test_works(device):
    pass

def test_breaks(device):
    assert False, "a wrong result"
'''


def pytest_in(tmp_path, *arguments):
    """pytest run from tmp_path, with this process's import path made absolute,
    so that it finds the same ember however PYTHONPATH was spelled."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(pathlib.Path(p).resolve()) for p in sys.path if p))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                           *arguments, str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)


def run_suite(tmp_path, device, listed, suite=SUITE):
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_suite.py").write_text(suite)
    (tmp_path / "expected_failures").mkdir()
    device_type = ember.device(device).type
    (tmp_path / "expected_failures" / f"{device_type}.txt").write_text(
        "".join(f"test_suite.py::{name}[{device_type}]  # frob: float32\n" for name in listed))
    return pytest_in(tmp_path, "-rfEX", "--device", device_type)


def outcomes(result):
    """{test name: outcome} from pytest's short summary lines."""
    found = {}
    for line in result.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("FAILED", "XPASS", "ERROR") and "::" in rest:
            found[rest.split("::", 1)[1].split("[", 1)[0]] = word
    return found


def test_listed_gaps_are_expected_and_the_list_is_kept_exact(tmp_path, device):
    result = run_suite(tmp_path, device, ["test_lacks_kernel", "test_works", "test_breaks", "test_renamed"])
    assert result.returncode == 1, result.stdout
    # Listed and still lacking its kernel: an expected failure. Unlisted and
    # lacking one: a failure, as is a listed test that now passes (strict) or
    # fails some other way.
    assert outcomes(result) == {"test_lacks_kernel_unlisted": "FAILED", "test_works": "FAILED",
                                "test_breaks": "FAILED"}, result.stdout
    assert "1 xfailed" in result.stdout
    assert "once it passes, remove that line" in result.stdout
    assert "frob: no kernel for dtype int64" in result.stdout
    # A line naming no test is reported with its file and line.
    device_type = ember.device(device).type
    assert (f"expected_failures/{device_type}.txt:4: test_suite.py::test_renamed[{device_type}] is not a test"
            in result.stdout)


def test_an_exact_list_passes(tmp_path, device):
    exact_suite = SUITE.split("def test_lacks_kernel_unlisted")[0] + "def test_works(device):\n    pass\n"
    result = run_suite(tmp_path, device, ["test_lacks_kernel"], suite=exact_suite)
    assert result.returncode == 0, result.stdout
    assert "1 passed, 1 xfailed" in result.stdout


def test_a_device_type_without_a_device_is_a_skip(tmp_path):
    shutil.copy(CONFTEST, tmp_path / "conftest.py")
    (tmp_path / "test_suite.py").write_text(SUITE)
    result = pytest_in(tmp_path, "--device", "nosuchdevice")
    assert result.returncode == 77, result.stdout + result.stderr
    assert "no nosuchdevice device on this machine" in result.stdout + result.stderr
