// Plugins of other ABI minors (minor_plugin.c) against this core, and a
// plugin of this SDK under a host that claims a newer minor: both sides
// must negotiate min(minors) and never read past the other's struct_size.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/ember_plugin.h>

#include "plugin_paths.h"

namespace ember {
namespace {

std::vector<float> negated_on(const std::string& device_type) {
  const Tensor x = tensor<float>({1.5f, -2.0f, 3.0f, 0.0f, -4.25f, 6.0f}, {2, 3}).to(Device(device_type));
  return neg(x.t()).to(Device("cpu")).tolist<float>();
}

TEST(AbiCompat, FutureMinorPluginRunsAtThisCoresMinor) {
  const PluginInfo info = load_plugin(test_plugin_path("future_minor"));
  EXPECT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.abi_minor, EMBER_ABI_VERSION_MINOR + 3u);
  EXPECT_EQ(info.negotiated_minor, static_cast<uint32_t>(EMBER_ABI_VERSION_MINOR));
  EXPECT_EQ(info.num_kernels, 1);
  EXPECT_EQ(negated_on("future"), (std::vector<float>{-1.5f, 0.0f, 2.0f, 4.25f, -3.0f, -6.0f}));
}

TEST(AbiCompat, V1_0PluginRunsInThisCore) {
  const PluginInfo info = load_plugin(test_plugin_path("v1_0_minor"));
  EXPECT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.abi_minor, 0u);
  EXPECT_EQ(info.negotiated_minor, 0u);
  EXPECT_EQ(negated_on("v1_0"), (std::vector<float>{-1.5f, 0.0f, 2.0f, 4.25f, -3.0f, -6.0f}));
}

// The 1.1 thread-count slots lie past a 1.0 plugin's table: the core sets
// the CPU plugin's count and leaves the 1.0 plugin alone.
TEST(AbiCompat, V1_0PluginIsLeftOutOfTheThreadCount) {
  load_plugin(test_plugin_path("v1_0_minor"));
  const int initial = get_num_threads();
  set_num_threads(3);
  EXPECT_EQ(get_num_threads(), 3);
  EXPECT_EQ(negated_on("v1_0"), (std::vector<float>{-1.5f, 0.0f, 2.0f, 4.25f, -3.0f, -6.0f}));
  set_num_threads(initial);
}

// A core of a later minor, simulated: a larger host table claiming minor + 1.
struct FutureHost {
  ember_host_api known;
  void* function_added_later;
};

struct FakeStatus {
  std::string message;
};

ember_status* fake_status_create(ember_status_code, const char* message) {
  return reinterpret_cast<ember_status*>(new FakeStatus{message});
}
void fake_status_destroy(ember_status* status) { delete reinterpret_cast<FakeStatus*>(status); }
void fake_log(ember_log_level, const char*, const char*) {}
ember_status* fake_register_kernel(ember_registrar* registrar, const ember_kernel_registration* kernel) {
  reinterpret_cast<std::vector<ember_kernel_registration>*>(registrar)->push_back(*kernel);
  return nullptr;
}

TEST(AbiCompat, V1_0PluginAcceptsANewerMinorHost) {
  // A file the core never loads, so this test's host is the only one it sees.
  void* library = dlopen(test_plugin_path("v1_0_minor_standalone").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto init = reinterpret_cast<ember_plugin_init_fn>(dlsym(library, EMBER_PLUGIN_INIT_SYMBOL));
  ASSERT_NE(init, nullptr);
  static FutureHost host{};
  host.known = {sizeof(FutureHost), EMBER_ABI_VERSION_MAJOR, EMBER_ABI_VERSION_MINOR + 1, nullptr,
                fake_status_create, fake_status_destroy, fake_log, fake_register_kernel};
  struct {
    ember_plugin known;
    char room_for_later_fields[64];
  } plugin{};
  plugin.known.struct_size = sizeof(plugin);
  ASSERT_EQ(init(&host.known, &plugin.known), nullptr);
  EXPECT_EQ(plugin.known.abi_major, static_cast<uint32_t>(EMBER_ABI_VERSION_MAJOR));
  EXPECT_EQ(plugin.known.abi_minor, 0u);
  EXPECT_LE(plugin.known.struct_size, sizeof(plugin));
  std::vector<ember_kernel_registration> kernels;
  ASSERT_EQ(plugin.known.register_kernels(reinterpret_cast<ember_registrar*>(&kernels)), nullptr);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_STREQ(kernels[0].op_name, "neg");

  float values[3] = {1, -2, 3}, result[3] = {};
  int64_t shape[1] = {3}, strides[1] = {1};
  DLTensor x{values, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, strides, 0};
  DLTensor out{result, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, strides, 0};
  ember_kernel_call call{};
  call.struct_size = sizeof call;
  call.op_name = "neg";
  call.inputs = &x;
  call.num_inputs = 1;
  call.outputs = &out;
  call.num_outputs = 1;
  ASSERT_EQ(kernels[0].kernel(&call, kernels[0].kernel_data), nullptr);
  EXPECT_EQ(std::vector<float>(result, result + 3), (std::vector<float>{-1, 2, -3}));
  dlclose(library);
}

}  // namespace
}  // namespace ember
