// Faults at the ABI: a kernel that throws past its fence, one that writes
// out of bounds of its output (caught by the faulty plugin's guard-page
// arena, Note [Guard-page arena]) and one that returns an error. Each is an
// ember::Error naming op and plugin, and the process, the faulty plugin's
// other kernels and the other plugins keep working.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/ops.h"
#include "ember/plugins.h"
#include "plugin/device_registry.h"
#include "expect_error.h"
#include "plugin_paths.h"

namespace ember {
namespace {

using testing::expect_error;

Device faulty() {
  const auto info = load_plugin(test_plugin_path("faulty_kernels"));
  EXPECT_TRUE(info.loaded) << info.error;
  return Device(plugin::DeviceRegistry::get().find_type("faulty"), 0);
}

// 128 float32 values: 512 bytes, exactly one size class of the caching
// allocator, so the block ends at the arena's guard page.
Tensor input_on(Device device) { return arange(-64, 64, 1, TensorOptions(DType::Float32)).to(device); }

std::string error_of(Tensor (*op)(const Tensor&), const Tensor& x) {
  try {
    op(x);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the faulty kernel succeeded";
  return "";
}

void expect_names(const std::string& message, const std::vector<std::string>& parts) {
  for (const std::string& part : parts) EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
}

void expect_the_cpu_still_works() {
  Tensor y = neg(arange(4, TensorOptions(DType::Float32)));
  EXPECT_EQ(y.tolist<float>(), (std::vector<float>{0, -1, -2, -3}));
}

TEST(KernelFaults, AKernelThatThrowsIsReportedWithItsOpAndPlugin) {
  const std::string message = error_of(&ember::neg, input_on(faulty()));
  expect_names(message, {"neg", "plugin 'faulty'", "plugin threw a C++ exception", "neg kernel blew up"});
  expect_the_cpu_still_works();
}

TEST(KernelFaults, AWriteOutOfBoundsIsCaughtByTheGuardPageAndReported) {
  const Device device = faulty();
  const std::string message = error_of(&ember::abs, input_on(device));
  expect_names(message, {"abs", "plugin 'faulty'", "wrote out of bounds of its output", "guard page"});
  // The process lives on: the same kernel faults again the same way.
  expect_names(error_of(&ember::abs, input_on(device)), {"abs", "wrote out of bounds"});
  expect_the_cpu_still_works();
}

TEST(KernelFaults, AKernelErrorIsReportedWithItsOpAndPlugin) {
  const std::string message = error_of(&ember::exp, input_on(faulty()));
  expect_names(message, {"exp", "plugin 'faulty'", "exp kernel returned an error"});
  expect_the_cpu_still_works();
}

TEST(KernelFaults, TheFaultyDevicesMemoryStillWorksAfterEveryFault) {
  const Device device = faulty();
  Tensor x = input_on(device);
  for (Tensor (*op)(const Tensor&) : {&ember::neg, &ember::abs, &ember::exp}) error_of(op, x);
  EXPECT_EQ(x.to(Device(kCpuDeviceType)).tolist<float>(),
            arange(-64, 64, 1, TensorOptions(DType::Float32)).tolist<float>());
}

// Every fault above, and a kernel that never returns, under the watchdog
// (Note [Kernel watchdog]): the hung call is an error naming op, plugin and
// timeout, the plugin is unusable from then on, the rest keeps working.
class KernelWatchdog : public ::testing::Test {
 protected:
  void SetUp() override { set_kernel_timeout(std::chrono::milliseconds(300)); }
  void TearDown() override { set_kernel_timeout(std::chrono::milliseconds(0)); }
};

TEST_F(KernelWatchdog, FaultsAreReportedAsWithoutIt) {
  const Device device = faulty();
  expect_names(error_of(&ember::neg, input_on(device)), {"neg", "plugin 'faulty'", "neg kernel blew up"});
  expect_names(error_of(&ember::abs, input_on(device)), {"abs", "wrote out of bounds of its output"});
  expect_names(error_of(&ember::exp, input_on(device)), {"exp", "exp kernel returned an error"});
  expect_the_cpu_still_works();
}

TEST_F(KernelWatchdog, AKernelThatNeverReturnsTimesOutAndItsPluginIsUnusable) {
  const Device device = faulty();
  const Tensor x = input_on(device);
  const auto begin = std::chrono::steady_clock::now();
  expect_names(error_of(&ember::sin, x),
               {"sin (float32) on faulty:0", "plugin 'faulty'", "did not return within 300 ms", "kernel watchdog"});
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
  // Any later kernel of the plugin fails at once, with the reason.
  expect_names(error_of(&ember::exp, x), {"exp (float32) on faulty:0", "the plugin is unusable",
                                          "sin (float32) on faulty:0", "did not return within 300 ms"});
  // The hung call's input is still allocated for it; other plugins go on.
  expect_the_cpu_still_works();
  const Tensor a = ones({64, 64});
  EXPECT_FLOAT_EQ(sum(matmul(a, a)).item<float>(), 64.0f * 64 * 64);
}

TEST(KernelWatchdogSetting, ANegativeTimeoutIsRefused) {
  expect_error([] { set_kernel_timeout(std::chrono::milliseconds(-1)); }, ErrorKind::Value, "must be >= 0 ms");
  EXPECT_EQ(kernel_timeout().count(), 0);
}

}  // namespace
}  // namespace ember
