"""Shared fixtures: `device` runs a test once per available device (the
device-generic pattern), and `torch`/`np` are the reference libraries."""

import numpy
import pytest

import ember


def _test_devices():
    return [str(info.device) for info in ember.devices() if info.device.type != "meta"]


@pytest.fixture(params=_test_devices())
def device(request):
    return request.param


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A kernel a device's plugin does not provide is the core's
    NotImplementedError naming op, dtype and device: on devices other than
    the CPU that is a gap in the plugin's coverage, reported as a skip."""
    try:
        return (yield)
    except NotImplementedError as error:
        device = getattr(item, "callspec", None) and item.callspec.params.get("device")
        if device and device != "cpu":
            pytest.skip(f"{device} lacks a kernel: {error}")
        raise


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def np():
    return numpy
