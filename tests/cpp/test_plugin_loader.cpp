// The plugin loader: every way a plugin can fail quarantines it with a
// reason, and the core and the other plugins keep working.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "ember/error.h"
#include "ember/ops.h"
#include "ember/plugins.h"
#include "plugin/device_registry.h"
#include "plugin_paths.h"

namespace ember {
namespace {

using plugin::DeviceRegistry;

struct BrokenPlugin {
  const char* file;
  const char* reason;
};

std::ostream& operator<<(std::ostream& os, const BrokenPlugin& p) { return os << p.file; }

PluginInfo find_plugin(const std::string& path) {
  for (const PluginInfo& info : plugins()) {
    if (info.path == path) return info;
  }
  ADD_FAILURE() << path << " is not listed in plugins()";
  return {};
}

Device toy(int32_t index = 0) {
  load_plugin(test_plugin_path("toy"));
  return Device(DeviceRegistry::get().find_type("toy"), index);
}

class BrokenPluginTest : public ::testing::TestWithParam<BrokenPlugin> {};

TEST_P(BrokenPluginTest, IsQuarantinedWithItsReason) {
  const std::string path = test_plugin_path(GetParam().file);
  std::string message = load_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find(GetParam().reason), std::string::npos) << message;

  PluginInfo info = find_plugin(path);
  EXPECT_FALSE(info.loaded);
  EXPECT_NE(info.error.find(GetParam().reason), std::string::npos) << info.error;
  EXPECT_EQ(info.num_kernels, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Loader, BrokenPluginTest,
    ::testing::Values(BrokenPlugin{"no_such_plugin", "no such file"},
                      BrokenPlugin{"not_a_library", "not a loadable shared library: "},
                      BrokenPlugin{"no_entry_symbol", "entry symbol 'ember_plugin_init' not found"},
                      BrokenPlugin{"wrong_major", "was built for ABI 2.3, this core speaks 1."},
                      BrokenPlugin{"init_fails", "ember_plugin_init failed: no device found: driver missing"},
                      BrokenPlugin{"throws_in_init", "plugin threw a C++ exception: init threw"},
                      BrokenPlugin{"null_kernel", "kernel for 'neg' (float32) has a NULL function"},
                      BrokenPlugin{"duplicate_device",
                                   "plugin 'duplicate_device' claims device type 'cpu', which plugin 'cpu'"},
                      BrokenPlugin{"bad_device_name", "invalid device type name 'Bad-Name'"},
                      BrokenPlugin{"missing_function", "required device function 'copy' is missing"},
                      BrokenPlugin{"refused_after_init", "a plugin without a device cannot register kernels"}),
    [](const auto& info) { return std::string(info.param.file); });

TEST(Loader, QuarantinedPluginClaimsNoDeviceType) {
  load_error(test_plugin_path("null_kernel"));
  EXPECT_EQ(DeviceRegistry::get().find_type("null_kernel_device"), -1);
  EXPECT_FALSE(is_device_type_available("null_kernel_device"));
}

// An op the core does not know is skipped (Note [Versioned catalogue]), and
// the plugin loads with everything else it has.
TEST(Loader, KernelForAnUnknownOpIsSkippedAndThePluginLoads) {
  PluginInfo info = load_plugin(test_plugin_path("unknown_op"));
  EXPECT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.skipped_ops, std::vector<std::string>{"no_such_op"});
  EXPECT_EQ(info.num_kernels, 0);
  EXPECT_EQ(info.device_type, "unknown_op_device");
  EXPECT_TRUE(is_device_type_available("unknown_op_device"));
}

// A view op is the core's own aliasing: a kernel for one is skipped the same way.
TEST(Loader, KernelForAViewOpIsSkippedAndThePluginLoads) {
  PluginInfo info = load_plugin(test_plugin_path("view_op"));
  EXPECT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.skipped_ops, std::vector<std::string>{"transpose"});
  EXPECT_EQ(info.num_kernels, 0);
  const Tensor x = empty({2, 3}, TensorOptions(DType::Float32, Device("view_op_device")));
  EXPECT_EQ(x.transpose(0, 1).sizes(), (DimVector{3, 2}));
}

TEST(Loader, LoadingAPathTwiceReturnsTheFirstResult) {
  PluginInfo first = load_plugin(test_plugin_path("toy"));
  PluginInfo second = load_plugin(test_plugin_path("toy"));
  EXPECT_EQ(first.path, second.path);
  EXPECT_EQ(first.device_type, "toy");
  EXPECT_EQ(second.device_type, "toy");
  std::string failure = load_error(test_plugin_path("init_fails"));
  EXPECT_EQ(load_error(test_plugin_path("init_fails")), failure);
  auto all = plugins();
  for (const char* name : {"toy", "init_fails"}) {
    EXPECT_EQ(
        std::count_if(all.begin(), all.end(), [&](const PluginInfo& p) { return p.path == test_plugin_path(name); }),
        1);
  }
}

TEST(Loader, NewerMinorPluginRunsAtTheCoreMinor) {
  PluginInfo info = load_plugin(test_plugin_path("newer_minor"));
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.name, "newer_minor");
  EXPECT_EQ(info.version, "1.0.0");
  EXPECT_EQ(info.abi_major, 1u);
  EXPECT_EQ(info.abi_minor, EMBER_ABI_VERSION_MINOR + 1u);
  EXPECT_EQ(info.negotiated_minor, static_cast<uint32_t>(EMBER_ABI_VERSION_MINOR));
  EXPECT_EQ(info.device_type, "");
}

TEST(Loader, CpuStillWorksAfterEveryFailure) {
  for (const char* file : {"not_a_library", "no_entry_symbol", "wrong_major", "init_fails", "throws_in_init",
                           "null_kernel", "duplicate_device", "missing_function"}) {
    load_error(test_plugin_path(file));
  }
  ASSERT_TRUE(is_device_type_available("cpu"));
  const std::array<int32_t, 4> values = {1, -2, 3, -4};
  auto a = plugin::allocate_storage(Device(kCpuDeviceType), sizeof(values));
  auto b = plugin::allocate_storage(Device(kCpuDeviceType), sizeof(values));
  plugin::copy_from_host(a->device(), a->data(), values.data(), sizeof(values));
  plugin::copy_bytes(b->device(), b->data(), a->device(), a->data(), sizeof(values));
  std::array<int32_t, 4> back{};
  plugin::copy_to_host(back.data(), b->device(), b->data(), sizeof(back));
  EXPECT_EQ(back, values);
}

TEST(Loader, CopiesBetweenDevicesRoundTrip) {
  load_plugin(test_plugin_path("failing_kernel"));
  Device failing(DeviceRegistry::get().find_type("failing"), 0);
  const std::vector<Device> route = {Device(kCpuDeviceType), toy(0), toy(1), failing, Device(kCpuDeviceType)};
  const char text[] = "through every device";
  std::vector<std::shared_ptr<Storage>> hops;
  for (Device device : route) hops.push_back(plugin::allocate_storage(device, sizeof(text)));
  plugin::copy_from_host(route[0], hops[0]->data(), text, sizeof(text));
  for (size_t i = 1; i < route.size(); ++i) {
    plugin::copy_bytes(route[i], hops[i]->data(), route[i - 1], hops[i - 1]->data(), sizeof(text));
  }
  char back[sizeof(text)] = {};
  plugin::copy_to_host(back, route.back(), hops.back()->data(), sizeof(back));
  EXPECT_STREQ(back, text);
}

TEST(Loader, KernelTablesListWhatEachPluginRegistered) {
  load_plugin(test_plugin_path("failing_kernel"));
  const std::vector<OpKernels> failing = registered_kernels("failing");
  ASSERT_EQ(failing.size(), 1u);
  EXPECT_EQ(failing[0].op, "neg");
  EXPECT_EQ(failing[0].dtypes, std::vector<DType>{DType::Float32});
  toy();
  EXPECT_TRUE(registered_kernels("toy").empty());
  EXPECT_TRUE(registered_kernels("meta").empty());
  EXPECT_THROW(registered_kernels("no_such_device"), Error);
}

TEST(Loader, MetaHasNoData) {
  auto storage = plugin::allocate_storage(Device(kMetaDeviceType), 128);
  EXPECT_EQ(storage->data(), nullptr);
  EXPECT_EQ(storage->nbytes(), 128u);
  char host[4];
  try {
    plugin::copy_to_host(host, Device(kMetaDeviceType), nullptr, sizeof(host));
    FAIL() << "copied from meta";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot copy data of a meta tensor");
  }
}

TEST(Loader, MissingDevicesAreNamed) {
  try {
    plugin::backend_for(toy(5));
    FAIL() << "toy:5 exists";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "device toy:5 does not exist (2 devices)");
  }
  try {
    plugin::backend_for(Device(kMaxDeviceTypes - 1));
    FAIL() << "an unclaimed device type has a backend";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("no plugin provides device type"), std::string::npos) << message;
    EXPECT_NE(message.find("loaded plugins: "), std::string::npos) << message;
  }
}

TEST(Loader, DevicesListsEveryDeviceAndMeta) {
  Device toy0 = toy(0);
  EXPECT_TRUE(is_device_type_available("toy"));
  EXPECT_TRUE(is_device_type_available("meta"));
  EXPECT_FALSE(is_device_type_available("no_such_type"));
  EXPECT_EQ(device_count("toy"), 2);
  EXPECT_EQ(device_count("no_such_type"), 0);
  auto all = devices();
  ASSERT_FALSE(all.empty());
  EXPECT_TRUE(all.back().device.is_meta());
  auto toys = std::count_if(all.begin(), all.end(), [&](const DeviceInfo& d) {
    return d.device.type == toy0.type && d.name == "toy device" && d.plugin == "toy" && d.total_memory == (8u << 20);
  });
  EXPECT_EQ(toys, 2);
  synchronize(toy0);
  synchronize(Device(kMetaDeviceType));
}

// The toy plugin declares nothing thread-safe and fails any concurrent call
// into its allocator, so this passes only if the core serialises the calls
// (the two devices have separate caching allocators and their own locks).
TEST(Loader, DeviceFunctionsNotDeclaredThreadSafeAreSerialised) {
  std::vector<std::thread> threads;
  std::array<std::string, 2> errors;
  for (int32_t index = 0; index < 2; ++index) {
    threads.emplace_back([&, index, device = toy(index)] {
      try {
        for (int i = 0; i < 100; ++i) {
          plugin::allocate_storage(device, 4096);
          empty_cache(device);
        }
      } catch (const std::exception& e) {
        errors[index] = e.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
}

// Loads thread_in_constructor, which is refused, then wakes its thread:
// true when the thread answered from the library's code.
bool refused_library_thread_answers() {
  int wake[2];
  int done[2];
  if (pipe(wake) != 0 || pipe(done) != 0) return false;
  setenv("EMBER_TEST_WAKE_FD", std::to_string(wake[0]).c_str(), 1);
  setenv("EMBER_TEST_DONE_FD", std::to_string(done[1]).c_str(), 1);
  bool refused = false;
  try {
    load_plugin(test_plugin_path("thread_in_constructor"));
  } catch (const Error& e) {
    refused = std::string(e.what()).find("entry symbol") != std::string::npos;
  }
  const char byte = 'a';
  if (write(wake[1], &byte, 1) != 1) return false;
  pollfd answer{};
  answer.fd = done[0];
  answer.events = POLLIN;
  char reply = 0;
  return refused && poll(&answer, 1, 10000) == 1 && read(done[0], &reply, 1) == 1 && reply == 'b';
}

// Note [Quarantined libraries stay loaded] in loader.cpp: the library's
// thread runs its code after the refusal, which crashes if it was unmapped.
TEST(Loader, QuarantinedLibraryStaysLoadedForItsThreads) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(refused_library_thread_answers() ? 0 : 1), ::testing::ExitedWithCode(0), "");
}

TEST(Loader, PluginRefusedAfterInitIsShutDownOnceAndStaysLoaded) {
  const std::string path = test_plugin_path("refused_after_init");
  load_error(path);
  load_error(path);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr) << "the quarantined library was unloaded";
  const auto* calls = static_cast<const int*>(dlsym(handle, "refused_after_init_shutdown_calls"));
  ASSERT_NE(calls, nullptr);
  EXPECT_EQ(*calls, 1);
  dlclose(handle);  // only the reference RTLD_NOLOAD took
}

// True when a FIFO, a symlink to it and a directory, all named like
// plugins, are refused as not regular files.
bool non_files_are_refused() {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ember_not_files_" + std::to_string(getpid()));
  fs::create_directories(dir / "libember_plugin_dir.so");
  const fs::path fifo = dir / "libember_plugin_fifo.so";
  if (mkfifo(fifo.c_str(), 0600) != 0) return false;
  fs::create_symlink(fifo, dir / "libember_plugin_link.so");
  bool ok = load_error(fifo.string()).find("not a regular file (a FIFO)") != std::string::npos;
  ok = ok &&
       load_error((dir / "libember_plugin_link.so").string()).find("not a regular file (a FIFO)") != std::string::npos;
  ok = ok && load_error((dir / "libember_plugin_dir.so").string()).find("not a regular file (a directory)") !=
                 std::string::npos;
  fs::remove_all(dir);
  return ok;
}

// dlopen() of a FIFO waits for a writer forever, holding the loader's lock;
// should that happen, the alarm ends the test's process.
TEST(Loader, OnlyRegularFilesAreOpened) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        alarm(10);
        std::exit(non_files_are_refused() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Loader, PathWithANullByteIsAValueError) {
  const std::string path = test_plugin_path("toy") + std::string(1, '\0') + "suffix";
  try {
    load_plugin(path);
    FAIL() << "a path with a null byte loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(std::string(e.what()).find("toy.so\\0suffix' contains an embedded null byte"), std::string::npos)
        << e.what();
  }
  for (const PluginInfo& info : plugins()) EXPECT_EQ(info.path.find("suffix"), std::string::npos) << info.path;
}

// Two builds of one backend side by side: a copy of the toy plugin beside the toy plugin.
TEST(Loader, PluginLoadsUnderAnotherNameAndDeviceType) {
  namespace fs = std::filesystem;
  toy();
  const fs::path dir = fs::temp_directory_path() / ("ember_second_toy_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string copy = (dir / "libtoy.so").string();
  fs::copy_file(test_plugin_path("toy"), copy, fs::copy_options::overwrite_existing);
  EXPECT_NE(load_error(copy).find("a plugin named 'toy' is already loaded"), std::string::npos);
  fs::copy_file(test_plugin_path("toy"), dir / "libtoy_again.so", fs::copy_options::overwrite_existing);
  PluginInfo info = load_plugin_as((dir / "libtoy_again.so").string(), "second_toy", "second_toy");
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.name, "second_toy");
  EXPECT_EQ(info.device_type, "second_toy");
  EXPECT_EQ(device_count("second_toy"), 2);
  EXPECT_EQ(device_count("toy"), 2);
  EXPECT_EQ(load_plugin((dir / "libtoy_again.so").string()).device_type, "second_toy");
  try {
    load_plugin_as(copy, "", "third_toy");
    FAIL() << "an empty plugin name was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ember
