// Device time (Note [Device activities]): a plugin's profiling extension
// times the device work of each kernel call, which the profiler hands back
// as Device events under their ops. The lagging test device runs kernels
// kLagMs after their call returns, so its device times are not host times;
// the CPU plugin times its kernels with the host clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/profiler.h>

#include "ember/plugins.h"
#include "expect_error.h"
#include "plugin/device_registry.h"
#include "plugin_paths.h"

namespace ember {
namespace {

using profiler::EventKind;
using profiler::ProfilerEvent;

constexpr int64_t kLagNs = 20'000'000;  // lagging_device.cpp's kLagMs

Device lagging() {
  const auto info = load_plugin(test_plugin_path("lagging"));
  EXPECT_TRUE(info.loaded) << info.error;
  return Device(plugin::DeviceRegistry::get().find_type("lagging"), 0);
}

std::vector<const ProfilerEvent*> of_kind(const std::vector<ProfilerEvent>& events, EventKind kind,
                                          const std::string& name) {
  std::vector<const ProfilerEvent*> found;
  for (const ProfilerEvent& e : events) {
    if (e.kind == kind && e.name == name) found.push_back(&e);
  }
  return found;
}

bool timed(const std::string& device_type) {
  const auto types = profiler::timed_device_types();
  return std::find(types.begin(), types.end(), device_type) != types.end();
}

TEST(DeviceTime, AQueuedKernelGetsTheDeviceTimeItsPluginMeasured) {
  const Device device = lagging();
  const Tensor x = ones({64}).to(device);
  EXPECT_TRUE(timed("lagging"));
  profiler::start({});
  Tensor y;
  for (int i = 0; i < 3; ++i) y = neg(x);
  const auto events = profiler::stop();
  const auto ops = of_kind(events, EventKind::Op, "neg");
  const auto kernels = of_kind(events, EventKind::Device, "lagging_neg_kernel");
  ASSERT_EQ(ops.size(), 3u);
  ASSERT_EQ(kernels.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const ProfilerEvent& op = *ops[i];
    const ProfilerEvent& kernel = *kernels[i];
    EXPECT_EQ(kernel.parent_id, op.id);
    EXPECT_EQ(kernel.device_type, device.type);
    EXPECT_EQ(kernel.thread_id, op.thread_id);
    // The op returned at once; the device took kLag after it was queued,
    // one kernel after another.
    EXPECT_LT(op.end_ns - op.start_ns, kLagNs);
    EXPECT_GE(kernel.end_ns - kernel.start_ns, kLagNs);
    EXPECT_GE(kernel.start_ns, op.start_ns);
    if (i > 0) EXPECT_GE(kernel.start_ns, kernels[i - 1]->end_ns);
  }
  EXPECT_EQ(sum(y.to(Device(kCpuDeviceType))).item<float>(), -64.0f);
}

TEST(DeviceTime, WorkQueuedBeforeTheSessionIsNotInIt) {
  const Device device = lagging();
  const Tensor x = ones({8}).to(device);
  (void)neg(x);  // still queued when the session starts
  profiler::start({});
  const auto events = profiler::stop();
  EXPECT_TRUE(of_kind(events, EventKind::Device, "lagging_neg_kernel").empty());
}

TEST(DeviceTime, CpuKernelsAreTimedInsideTheirOps) {
  const Tensor a = ones({256, 256});  // loads the CPU plugin
  ASSERT_TRUE(timed("cpu"));
  profiler::start({});
  (void)matmul(a, a);
  const auto events = profiler::stop();
  const auto ops = of_kind(events, EventKind::Op, "mm");
  const auto kernels = of_kind(events, EventKind::Device, "mm");
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0]->parent_id, ops[0]->id);
  EXPECT_EQ(kernels[0]->device_type, kCpuDeviceType);
  EXPECT_GE(kernels[0]->start_ns, ops[0]->start_ns);
  EXPECT_LE(kernels[0]->end_ns, ops[0]->end_ns);
  EXPECT_GT(kernels[0]->end_ns, kernels[0]->start_ns);
}

TEST(DeviceTime, WithoutASessionNoDeviceEventsAreKept) {
  const Tensor a = ones({4});
  (void)(a + a);
  profiler::start({});
  const auto events = profiler::stop();
  EXPECT_TRUE(events.empty());
}

TEST(DeviceTime, ATimerThatFailsCostsDeviceTimeNotOps) {
  const auto info = load_plugin(test_plugin_path("lagging_failing_timer"));
  ASSERT_TRUE(info.loaded) << info.error;
  const Device device(plugin::DeviceRegistry::get().find_type("lagging_failing_timer"), 0);
  const Tensor x = ones({4}).to(device);
  profiler::start({});
  const Tensor y = neg(x);
  const auto events = profiler::stop();
  EXPECT_EQ(of_kind(events, EventKind::Op, "neg").size(), 1u);
  EXPECT_EQ(sum(y.to(Device(kCpuDeviceType))).item<float>(), -4.0f);
}

TEST(DeviceTime, AMalformedTimerQuarantinesItsPlugin) {
  testing::expect_error([] { load_plugin(test_plugin_path("lagging_null_timer")); }, ErrorKind::Runtime,
                        "profiling extension leaves a required function NULL");
  EXPECT_FALSE(timed("lagging_null_timer"));
}

}  // namespace
}  // namespace ember
