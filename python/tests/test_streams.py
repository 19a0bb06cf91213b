"""Streams, events and the per-device modules (ember.cuda, ember.xpu, ember.cpu
and any plugin's device type), as torch.cuda has them. Multi-stream behaviour
runs on the XPU plugin of the build tree (OpenCL queues; PoCL on a CPU) and is
skipped, saying so, where that plugin or an OpenCL device is missing."""

import pathlib
import threading

import pytest

import ember

N = 1 << 16


def _xpu_plugin_path():
    build = pathlib.Path(ember._C.__file__).resolve().parents[2]
    return build / "plugins" / "xpu" / "libember_plugin_xpu.so"


@pytest.fixture(scope="module")
def xpu():
    path = _xpu_plugin_path()
    if not path.exists():
        pytest.skip(f"the XPU plugin is not built ({path} is missing)")
    ember.load_plugin(path)
    if not ember.xpu.is_available():
        pytest.skip("no OpenCL device for the XPU plugin")
    return ember.xpu


def _slow_ones_plus(count, device):
    """ones + count, as `count` queued kernels: enough work that a reader on
    another stream would overtake it."""
    x = ember.ones(N, device=device)
    for _ in range(count):
        x = x + ember.ones_like(x)
    return x


def test_cuda_without_a_plugin_is_unavailable():
    assert ember.cuda.is_available() is False
    assert ember.cuda.device_count() == 0
    assert ember.cuda.__name__ == "ember.cuda"


def test_a_plugin_device_type_gets_the_same_module():
    assert ember.cpu is ember._device_module("cpu")
    for name in ("is_available", "device_count", "current_stream", "stream", "synchronize", "memory_allocated",
                 "max_memory_allocated", "reset_peak_memory_stats", "empty_cache", "Stream", "Event"):
        assert hasattr(ember.cpu, name) and hasattr(ember.cuda, name), name
    with pytest.raises(AttributeError, match="no attribute 'nosuchdevice'"):
        ember.nosuchdevice


def test_a_device_without_streams_has_its_default_stream_and_synchronous_events():
    stream = ember.cpu.Stream()
    assert stream == ember.cpu.current_stream() == ember.Stream()
    assert stream.stream_id == 0 and stream.device_type == "cpu" and stream.query()
    with ember.cpu.stream(stream):
        assert (ember.ones(2) + 1).tolist() == [2.0, 2.0]
    start, end = ember.cpu.Event(enable_timing=True), ember.cpu.Event(enable_timing=True)
    start.record()
    end.record(stream)
    end.wait()
    assert start.query() and end.query() and start.elapsed_time(end) >= 0
    assert stream.record_event().query()


def test_elapsed_time_needs_timing_events_and_records():
    untimed = ember.Event()
    untimed.record()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        untimed.elapsed_time(untimed)
    with pytest.raises(RuntimeError, match="must be recorded"):
        ember.Event(enable_timing=True).elapsed_time(ember.Event(enable_timing=True))


def test_memory_statistics_of_a_device_module():
    ember.cpu.synchronize()
    before = ember.cpu.memory_allocated()
    x = ember.empty(1 << 18)
    assert ember.cpu.memory_allocated() == before + (1 << 20)
    ember.cpu.reset_peak_memory_stats()
    assert ember.cpu.max_memory_allocated() == ember.cpu.memory_allocated()
    del x
    assert ember.cpu.memory_allocated() == before
    ember.cpu.empty_cache()
    assert ember.cpu.memory_reserved() <= ember.cpu.max_memory_allocated()


def test_a_device_of_another_type_is_a_value_error():
    with pytest.raises(ValueError, match="ember.cuda: expected a cuda device, but got cpu"):
        ember.cuda.current_stream("cpu")
    with pytest.raises(ValueError, match="ember.cuda: the stream is on cpu, not a cuda device"):
        ember.cuda.stream(ember.cpu.Stream())
    with pytest.raises(TypeError, match="expected an ember.Stream, but got str"):
        ember.cpu.set_stream("cpu")


def test_the_stream_context_is_per_thread_and_restores(xpu):
    side = xpu.Stream()
    assert side.stream_id != 0 and side != xpu.current_stream()
    seen = []
    with xpu.stream(side):
        assert xpu.current_stream() == side
        worker = threading.Thread(target=lambda: seen.append(xpu.current_stream()))
        worker.start()
        worker.join()
        with xpu.stream(None):
            assert xpu.current_stream() == side
    assert seen == [xpu.default_stream()]
    assert xpu.current_stream() == xpu.default_stream()


def test_wait_stream_and_events_order_work_across_streams(xpu):
    side = xpu.Stream()
    with xpu.stream(side):
        x = _slow_ones_plus(40, "xpu")
    xpu.current_stream().wait_stream(side)
    assert (x * 1).cpu()[12345].item() == 41.0
    with xpu.stream(side):
        y = _slow_ones_plus(20, "xpu")
        done = side.record_event()
    xpu.current_stream().wait_event(done)
    assert (y * 1).cpu()[999].item() == 21.0
    x.record_stream(xpu.current_stream())
    y.record_stream(xpu.current_stream())


def test_record_stream_keeps_memory_out_of_reuse_until_the_stream_is_done(xpu):
    side = xpu.Stream()
    xpu.empty_cache()  # no block of the size below is cached for the default stream
    x = ember.ones(4096, device="xpu")
    with xpu.stream(side):
        doubled = x + x
    x.record_stream(side)
    del x
    device_allocs = xpu.memory_stats()["num_device_allocs"]
    while_pending = ember.empty(4096, device="xpu")
    assert xpu.memory_stats()["num_device_allocs"] == device_allocs + 1
    side.synchronize()
    after = ember.empty(4096, device="xpu")
    assert xpu.memory_stats()["num_device_allocs"] == device_allocs + 1
    assert doubled.cpu()[0].item() == 2.0 and while_pending.shape == after.shape


def test_a_stream_of_another_device_is_an_error_naming_both(xpu):
    x = ember.ones(3, device="xpu")
    with pytest.raises(RuntimeError, match="record_stream: the tensor is on xpu:0, but the stream is on cpu"):
        x.record_stream(ember.cpu.Stream())
    with pytest.raises(RuntimeError, match="the stream to wait for is on cpu, but the stream is on xpu:0"):
        xpu.Stream().wait_stream(ember.cpu.Stream())
    event = xpu.Event()
    event.record()
    with pytest.raises(RuntimeError, match="the event belongs to xpu:0, but the stream is on cpu"):
        ember.cpu.current_stream().wait_event(event)
