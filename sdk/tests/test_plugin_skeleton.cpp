// The plugin skeleton's helpers against a stand-in host: fenced<> turns what
// a device function throws into a status, device_table() and plugin_init<>
// (EMBER_PLUGIN_ENTRY's body) fill the tables as far as the core's
// struct_size allows.
#include <gtest/gtest.h>

#include <ember/ember_plugin.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace ember::sdk {
namespace {

struct FakeStatus {
  ember_status_code code;
  std::string message;
};

ember_status* create_status(ember_status_code code, const char* message) {
  return reinterpret_cast<ember_status*>(new FakeStatus{code, message});
}

// Reads and frees a status made by create_status.
FakeStatus take(ember_status* status) {
  auto* fake = reinterpret_cast<FakeStatus*>(status);
  FakeStatus copy = *fake;
  delete fake;
  return copy;
}

ember_host_api fake_host() {
  ember_host_api host{};
  host.struct_size = sizeof host;
  host.status_create = create_status;
  return host;
}

void count_three(int32_t* count) { *count = 3; }
void refuse_device(int32_t device) {
  fail(EMBER_STATUS_INVALID_ARGUMENT, "device " + std::to_string(device) + " does not exist");
}
void throw_foreign(int32_t) { throw 42; }
void run_out_of_memory(int32_t) { throw std::bad_alloc(); }

TEST(PluginSkeleton, FencedTurnsThrowsIntoStatuses) {
  const ember_host_api host = fake_host();
  set_host(&host);
  int32_t count = 0;
  EXPECT_EQ(fenced<count_three>(&count), nullptr);
  EXPECT_EQ(count, 3);
  const FakeStatus refused = take(fenced<refuse_device>(7));
  EXPECT_EQ(refused.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(refused.message, "device 7 does not exist");
  EXPECT_EQ(take(fenced<throw_foreign>(0)).code, EMBER_STATUS_INTERNAL);
  EXPECT_EQ(take(fenced<run_out_of_memory>(0)).code, EMBER_STATUS_OUT_OF_MEMORY);
}

TEST(PluginSkeleton, DeviceTableStartsEmpty) {
  ember_device_api api = device_table("toy", kDLExtDev, EMBER_DEVICE_COPY_THREAD_SAFE);
  api.device_count = fenced<count_three>;
  api.synchronize = fenced<refuse_device>;
  EXPECT_EQ(api.struct_size, sizeof(ember_device_api));
  EXPECT_STREQ(api.device_type, "toy");
  EXPECT_EQ(api.dl_device_type, kDLExtDev);
  EXPECT_EQ(api.thread_safety, EMBER_DEVICE_COPY_THREAD_SAFE);
  EXPECT_EQ(api.stream_create, nullptr);
  EXPECT_EQ(api.supports_op, nullptr);
}

void register_nothing(ember_registrar*) {}

ember_plugin describe_toy() {
  ember_plugin plugin{};
  plugin.abi_major = 99;  // plugin_init stamps the SDK's own
  plugin.name = "toy";
  plugin.version = "1.2.3";
  plugin.register_kernels = fenced<register_nothing>;
  return plugin;
}

ember_plugin describe_failing() { fail(EMBER_STATUS_UNAVAILABLE, "no toy device"); }

TEST(PluginSkeleton, PluginInitStampsTheAbiAndHonoursStructSize) {
  const ember_host_api host = fake_host();
  ember_plugin full{};
  full.struct_size = sizeof full;
  ASSERT_EQ(plugin_init<describe_toy>(&host, &full), nullptr);
  EXPECT_EQ(sdk::host(), &host);
  EXPECT_EQ(full.abi_major, EMBER_ABI_VERSION_MAJOR);
  EXPECT_EQ(full.abi_minor, EMBER_ABI_VERSION_MINOR);
  EXPECT_STREQ(full.name, "toy");
  EXPECT_NE(full.register_kernels, nullptr);

  // A core whose struct ends before `version` receives nothing past it.
  ember_plugin truncated{};
  truncated.struct_size = offsetof(ember_plugin, version);
  ASSERT_EQ(plugin_init<describe_toy>(&host, &truncated), nullptr);
  EXPECT_STREQ(truncated.name, "toy");
  EXPECT_EQ(truncated.version, nullptr);
  EXPECT_EQ(truncated.register_kernels, nullptr);

  ember_plugin untouched{};
  untouched.struct_size = sizeof untouched;
  const FakeStatus failed = take(plugin_init<describe_failing>(&host, &untouched));
  EXPECT_EQ(failed.code, EMBER_STATUS_UNAVAILABLE);
  EXPECT_EQ(failed.message, "no toy device");
  EXPECT_EQ(untouched.name, nullptr);
}

}  // namespace
}  // namespace ember::sdk
