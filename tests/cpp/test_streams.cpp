// Streams and events in the core (ember/stream.h): the current stream per
// thread and device reaches kernels, the caching allocator keeps blocks on
// their stream and out of reuse while a recorded stream may use them, and a
// stream is never mixed with another device's tensors. The "streamed" toy
// plugin (tests/plugins/toy_device.c) has numbered streams and a neg kernel
// that takes 64 KiB of scratch and writes the number of the stream it ran
// on; the XPU plugin, where
// built and an OpenCL device exists, runs the same model on real queues.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "ember/ember.h"
#include "ember/stream.h"
#include "expect_error.h"
#include "plugin/device_registry.h"
#include "plugin_paths.h"

namespace ember {
namespace {

using ember::testing::expect_error;

Device toy_device(const char* plugin, const char* type, int32_t index = 0) {
  load_plugin(test_plugin_path(plugin));
  return Device(plugin::DeviceRegistry::get().find_type(type), index);
}

// The stream number the toy's neg kernel saw.
float stream_seen_by_kernel(Device device) {
  const Tensor out = neg(empty({3}, TensorOptions(DType::Float32, device)));
  const std::vector<float> values = out.to(Device("cpu")).tolist<float>();
  EXPECT_EQ(values[0], values[2]);
  return values[0];
}

void* block_of(const Tensor& t) { return t.impl()->storage()->data(); }

class StreamsOnToy : public ::testing::Test {
 protected:
  void SetUp() override {
    device_ = toy_device("streamed_toy", "streamed");
    synchronize(device_);
    empty_cache(device_);
  }
  Tensor block(Device device) const { return empty({256}, TensorOptions(DType::Float32, device)); }
  Device device_;
};

TEST_F(StreamsOnToy, KernelsRunOnTheCurrentStream) {
  const Stream stream = Stream::create(device_);
  ASSERT_NE(stream.id(), 0u);
  const auto number = static_cast<float>(reinterpret_cast<uintptr_t>(stream.native_handle()));
  ASSERT_NE(number, 0.0f);
  EXPECT_EQ(stream_seen_by_kernel(device_), 0.0f);
  {
    StreamGuard guard(stream);
    EXPECT_EQ(current_stream(device_), stream);
    EXPECT_EQ(stream_seen_by_kernel(device_), number);
  }
  EXPECT_EQ(current_stream(device_), Stream::default_stream(device_));
  EXPECT_EQ(stream_seen_by_kernel(device_), 0.0f);
}

TEST_F(StreamsOnToy, CurrentStreamIsPerThreadAndPerDevice) {
  const Stream stream = Stream::create(device_);
  StreamGuard guard(stream);
  const Device other_device(device_.type, 1);
  EXPECT_EQ(current_stream(other_device).id(), 0u);
  uint64_t seen_on_other_thread = 1;
  std::thread([&] { seen_on_other_thread = current_stream(device_).id(); }).join();
  EXPECT_EQ(seen_on_other_thread, 0u);
  EXPECT_EQ(current_stream(device_), stream);
}

TEST_F(StreamsOnToy, AFreedBlockServesOnlyItsOwnStream) {
  const Stream stream = Stream::create(device_);
  void* on_stream = nullptr;
  {
    StreamGuard guard(stream);
    on_stream = block_of(block(device_));
  }
  const Tensor on_default = block(device_);
  EXPECT_NE(block_of(on_default), on_stream);
  StreamGuard guard(stream);
  EXPECT_EQ(block_of(block(device_)), on_stream);
}

TEST_F(StreamsOnToy, KernelScratchMemoryFollowsTheKernelsStream) {
  const Stream stream = Stream::create(device_);
  const Tensor x = empty({3}, TensorOptions(DType::Float32, device_));
  {
    StreamGuard guard(stream);
    neg(x);  // takes and returns 64 KiB of scratch on `stream`
  }
  const int64_t scratch_floats = (64 << 10) / 4;
  const uint64_t device_allocs = memory_stats(device_).num_device_allocs;
  const Tensor on_default = empty({scratch_floats}, TensorOptions(DType::Float32, device_));
  EXPECT_EQ(memory_stats(device_).num_device_allocs, device_allocs + 1);
  StreamGuard guard(stream);
  const Tensor on_stream = empty({scratch_floats}, TensorOptions(DType::Float32, device_));
  EXPECT_EQ(memory_stats(device_).num_device_allocs, device_allocs + 1);
}

// A kernel without EMBER_KERNEL_THREAD_SAFE runs under its plugin's serial
// lock; its scratch request reaches the plugin's allocator, serialised by the
// same lock, on the same thread (Note [Serialised device calls]).
TEST(SerialisedPlugin, AKernelTakingScratchUnderTheSerialLockCompletes) {
  const Device device = toy_device("serial_toy", "serial");
  EXPECT_EQ(stream_seen_by_kernel(device), 0.0f);
}

TEST_F(StreamsOnToy, RecordStreamKeepsABlockOutOfReuseUntilTheStreamIsSynchronized) {
  const Stream stream = Stream::create(device_);
  Tensor used = block(device_);
  void* recorded = block_of(used);
  record_stream(used, stream);
  used = Tensor();
  const uint64_t device_allocs = memory_stats(device_).num_device_allocs;
  const Tensor while_pending = block(device_);
  EXPECT_NE(block_of(while_pending), recorded);
  EXPECT_EQ(memory_stats(device_).num_device_allocs, device_allocs + 1);
  stream.synchronize();
  EXPECT_EQ(block_of(block(device_)), recorded);
}

TEST_F(StreamsOnToy, DeviceSynchronizeReturnsRecordedBlocks) {
  const Stream stream = Stream::create(device_);
  Tensor used = block(device_);
  void* recorded = block_of(used);
  record_stream(used, stream);
  used = Tensor();
  synchronize(device_);
  EXPECT_EQ(block_of(block(device_)), recorded);
}

TEST_F(StreamsOnToy, RecordingTheBlocksOwnStreamChangesNothing) {
  Tensor used = block(device_);
  void* recorded = block_of(used);
  record_stream(used, Stream::default_stream(device_));
  used = Tensor();
  EXPECT_EQ(block_of(block(device_)), recorded);
}

TEST_F(StreamsOnToy, ADestroyedStreamHandsItsCachedBlocksToTheDefaultStream) {
  void* freed = nullptr;
  {
    const Stream stream = Stream::create(device_);
    StreamGuard guard(stream);
    freed = block_of(block(device_));
  }
  EXPECT_EQ(block_of(block(device_)), freed);
}

TEST_F(StreamsOnToy, AStreamOfAnotherDeviceIsAnErrorNamingBoth) {
  const Device second(device_.type, 1);
  const Stream stream = Stream::create(second);
  const Tensor t = block(device_);
  expect_error([&] { record_stream(t, stream); }, ErrorKind::Runtime, "the tensor is on streamed:0");
  expect_error([&] { record_stream(t, stream); }, ErrorKind::Runtime, "the stream is on streamed:1");
  expect_error([&] { Stream::create(device_).wait_stream(stream); }, ErrorKind::Runtime,
               "the stream to wait for is on streamed:1, but the stream is on streamed:0");
  Event event;
  event.record(Stream::create(device_));
  expect_error([&] { event.record(stream); }, ErrorKind::Runtime,
               "the event belongs to streamed:0, but the stream is on streamed:1");
  expect_error([&] { event.wait(stream); }, ErrorKind::Runtime,
               "the event belongs to streamed:0, but the stream is on streamed:1");
}

TEST_F(StreamsOnToy, EventsOrderStreamsAndTime) {
  const Stream first = Stream::create(device_);
  const Stream second = Stream::create(device_);
  Event start(true);
  Event end(true);
  start.record(first);
  second.wait_stream(first);
  end.record(second);
  end.wait(first);
  EXPECT_TRUE(end.query());
  EXPECT_GE(start.elapsed_time(end), 0.0);
  EXPECT_EQ(end.device(), device_);
  Event untimed;
  untimed.record(first);
  expect_error([&] { start.elapsed_time(untimed); }, ErrorKind::Runtime, "enable_timing=True");
  expect_error([&] { Event(true).elapsed_time(end); }, ErrorKind::Runtime, "must be recorded");
}

TEST(Streams, ADeviceWithoutStreamSlotsHasOnlyItsDefaultStream) {
  const Device cpu("cpu");
  const Stream stream = Stream::create(cpu);
  EXPECT_EQ(stream, Stream::default_stream(cpu));
  EXPECT_EQ(stream.native_handle(), nullptr);
  EXPECT_TRUE(stream.query());
  Event event(true);
  EXPECT_TRUE(event.query());  // never recorded
  event.record(stream);
  EXPECT_TRUE(event.query());
  event.wait(stream);
  StreamGuard guard(stream);
  EXPECT_EQ(add(ones({2}), ones({2})).tolist<float>(), (std::vector<float>{2, 2}));
}

TEST(Streams, ANoFromSupportsOpIsNotImplementedNamingOpDtypeDeviceAndPlugin) {
  const Device device = toy_device("refusing_toy", "refusing");
  const Tensor x = empty({2}, TensorOptions(DType::Float32, device));
  // The kernel would fail with "kernel exploded": the question comes first.
  expect_error([&] { neg(x); }, ErrorKind::NotImplemented,
               "neg: plugin 'refusing_toy' does not support dtypes (float32, float32) on device 'refusing'");
}

#ifdef EMBER_XPU_PLUGIN_PATH
class StreamsOnXpu : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(load_plugin(EMBER_XPU_PLUGIN_PATH).loaded);
    if (device_count("xpu") == 0) GTEST_SKIP() << "no OpenCL device";
    device_ = Device("xpu");
  }
  // Enough queued work that a reader on another stream would overtake it.
  Tensor slow_sum(int iterations) const {
    Tensor x = ones({1 << 16}, TensorOptions(DType::Float32, device_));
    for (int i = 0; i < iterations; ++i) x = add(x, ones_like(x));
    return x;
  }
  Device device_;
};

TEST_F(StreamsOnXpu, WaitStreamAndEventsOrderWorkAcrossQueues) {
  const Stream side = Stream::create(device_);
  ASSERT_NE(side.native_handle(), nullptr);
  Tensor x;
  {
    StreamGuard guard(side);
    x = slow_sum(40);
  }
  current_stream(device_).wait_stream(side);
  EXPECT_EQ(mul(x, ones_like(x)).to(Device("cpu")).tolist<float>()[12345], 41.0f);

  Event done;
  Tensor y;
  {
    StreamGuard guard(side);
    y = slow_sum(20);
    done.record(side);
  }
  done.wait(current_stream(device_));
  EXPECT_EQ(mul(y, ones_like(y)).to(Device("cpu")).tolist<float>()[999], 21.0f);
  record_stream(x, current_stream(device_));
}

TEST_F(StreamsOnXpu, CopiesRunOnTheCurrentStream) {
  const Stream side = Stream::create(device_);
  StreamGuard guard(side);
  const Tensor x = slow_sum(30);
  EXPECT_EQ(x.to(Device("cpu")).tolist<float>()[777], 31.0f);
}

TEST_F(StreamsOnXpu, RecordStreamKeepsABlockUntilTheStreamsWorkIsDone) {
  const Stream side = Stream::create(device_);
  Tensor x = ones({4096}, TensorOptions(DType::Float32, device_));
  void* recorded = block_of(x);
  {
    StreamGuard guard(side);
    const Tensor sum = add(x, x);
    record_stream(x, side);
  }
  x = Tensor();
  const Tensor while_pending = empty({4096}, TensorOptions(DType::Float32, device_));
  EXPECT_NE(block_of(while_pending), recorded);
  side.synchronize();
  EXPECT_EQ(block_of(empty({4096}, TensorOptions(DType::Float32, device_))), recorded);
}
#endif

}  // namespace
}  // namespace ember
