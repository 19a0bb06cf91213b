"""Shared fixtures: a test taking `device` runs once per available device (the
device-generic pattern), and `torch`/`np` are the reference libraries.
"""

import pathlib

import numpy
import pytest

import ember

TESTS_DIR = pathlib.Path(__file__).resolve().parent

# Note [Expected failures per device]
# A kernel a device's plugin does not provide is the core's NotImplementedError
# naming op, dtype and device. Such a gap is not hidden: a test that hits one
# fails, unless its id is listed in expected_failures/<device type>.txt, which
# marks it as a strict expected failure raising NotImplementedError. The list
# is kept exact both ways: a listed test that passes fails the run (its line
# must go), and so does a line naming a test that no longer exists; a listed
# test that fails some other way is an ordinary failure. The ids there are the
# test's id relative to this folder with the device written as its type
# (`test_operators.py::test_matmul[xpu]`), so that they hold on every device
# of that type.
EXPECTED_FAILURES_DIR = TESTS_DIR / "expected_failures"
_stale_entries = pytest.StashKey[list]()


def pytest_addoption(parser):
    parser.addoption("--device", action="append", default=[], metavar="TYPE",
                     help="run only the device-generic tests, on the devices of this type (repeatable)")


def _test_devices(config):
    devices = [str(info.device) for info in ember.devices() if info.device.type != "meta"]
    wanted = config.getoption("device")
    return [d for d in devices if ember.device(d).type in wanted] if wanted else devices


def pytest_configure(config):
    present = {ember.device(d).type for d in _test_devices(config)}
    missing = [t for t in config.getoption("device") if t not in present]
    if missing:
        # ctest reads exit status 77 as a skip.
        pytest.exit(f"SKIPPED: no {', '.join(missing)} device on this machine", returncode=77)


def pytest_generate_tests(metafunc):
    if "device" in metafunc.fixturenames:
        metafunc.parametrize("device", _test_devices(metafunc.config))


def _device_of(item):
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("device") if callspec else None


def _listed_id(item, device):
    """The test's id as expected_failures/ writes it (Note [Expected failures per device])."""
    path = pathlib.Path(item.path).resolve().relative_to(TESTS_DIR).as_posix()
    function = item.nodeid.split("::", 1)[1].split("[", 1)[0]
    params = "-".join(ember.device(p).type if p == device else p for p in item.callspec.id.split("-"))
    return f"{path}::{function}[{params}]"


def read_expected_failures(device_type):
    """{test id: (line number, why)} from expected_failures/<device_type>.txt:
    one test id a line, then `# ` and the kernel it lacks."""
    path = EXPECTED_FAILURES_DIR / f"{device_type}.txt"
    entries = {}
    if not path.exists():
        return entries
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        test_id, _, why = line.partition("#")
        if test_id.strip():
            entries[test_id.strip()] = (number, why.strip())
    return entries


def _collects_whole_folder(config):
    return any(TESTS_DIR.is_relative_to(pathlib.Path(arg).resolve()) for arg in config.args if "::" not in arg)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # Runs before -k and -m deselect anything, so that every collected test
    # counts when stale lines are looked for.
    if config.getoption("device"):
        config.hook.pytest_deselected(items=[item for item in items if _device_of(item) is None])
        items[:] = [item for item in items if _device_of(item) is not None]
    collected = {}
    expected_failures = {}
    for item in items:
        device = _device_of(item)
        if device is None:
            continue
        device_type = ember.device(device).type
        if device_type not in expected_failures:
            expected_failures[device_type] = read_expected_failures(device_type)
        test_id = _listed_id(item, device)
        collected.setdefault(device_type, set()).add(test_id)
        entry = expected_failures[device_type].get(test_id)
        if entry is not None:
            item.add_marker(pytest.mark.xfail(
                strict=True, raises=NotImplementedError,
                reason=f"expected_failures/{device_type}.txt:{entry[0]} ({entry[1]}); "
                       "once it passes, remove that line"))
    stale = []
    whole_folder = _collects_whole_folder(config)
    for device_type, test_ids in collected.items():
        functions = {test_id.split("[", 1)[0] for test_id in test_ids}
        for test_id, (number, _) in expected_failures[device_type].items():
            if test_id not in test_ids and (whole_folder or test_id.split("[", 1)[0] in functions):
                stale.append(f"expected_failures/{device_type}.txt:{number}: {test_id} is not a test: remove the line")
    config.stash[_stale_entries] = stale


def pytest_terminal_summary(terminalreporter, config):
    stale = config.stash.get(_stale_entries, [])
    if stale:
        terminalreporter.section("stale expected failures", red=True)
        for line in stale:
            terminalreporter.line(line)


def pytest_sessionfinish(session):
    if session.config.stash.get(_stale_entries, []) and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def np():
    return numpy
