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


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def np():
    return numpy
