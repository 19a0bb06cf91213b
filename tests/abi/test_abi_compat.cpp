// The 1.0 x 1.1 matrix: plugins of other ABI minors (minor_plugin.c) against
// this core, and plugins of this SDK under simulated hosts of other minors.
// Both sides must negotiate min(minors), never read past the other's
// struct_size, and keep the kernels of ops both sides know.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <ember/ember.h>
#include <ember/ember_plugin.h>

#include "core/logging.h"
#include "plugin_paths.h"

namespace ember {
namespace {

std::vector<float> negated_on(const std::string& device_type) {
  const Tensor x = tensor<float>({1.5f, -2.0f, 3.0f, 0.0f, -4.25f, 6.0f}, {2, 3}).to(Device(device_type));
  return neg(x.t()).to(Device("cpu")).tolist<float>();
}

const std::vector<float> kNegated = {-1.5f, 0.0f, 2.0f, 4.25f, -3.0f, -6.0f};

// The message of the error that the plugin's abs kernel (which asks for
// more scratch than its device has) raises on `device_type`.
std::string scratch_error_on(const std::string& device_type) {
  const Tensor x = tensor<float>({1.0f, -2.0f}, {1, 2}).to(Device(device_type));
  try {
    abs(x);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "abs on " << device_type << " did not fail";
  return {};
}

std::set<std::string> kernel_ops(const std::string& device_type) {
  std::set<std::string> ops;
  for (const OpKernels& entry : registered_kernels(device_type)) ops.insert(entry.op);
  return ops;
}

// What the core logs while it lives, at `level` and above.
class LogCapture {
 public:
  explicit LogCapture(spdlog::level::level_enum level)
      : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)), old_level_(log().level()) {
    log().sinks().push_back(sink_);
    log().set_level(level);
  }
  ~LogCapture() {
    log().set_level(old_level_);
    auto& sinks = log().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
  spdlog::level::level_enum old_level_;
};

// The 1.0 plugin, loaded once per process, and what the core logged then.
const std::string& load_v1_0_plugin() {
  static const std::string logged = [] {
    LogCapture capture(spdlog::level::debug);
    const PluginInfo info = load_plugin(test_plugin_path("v1_0_minor"));
    EXPECT_TRUE(info.loaded) << info.error;
    return capture.text();
  }();
  return logged;
}

TEST(AbiCompat, FutureMinorPluginRunsAtThisCoresMinorWithoutItsUnknownOp) {
  LogCapture capture(spdlog::level::warn);
  const PluginInfo info = load_plugin(test_plugin_path("future_minor"));
  EXPECT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.abi_minor, EMBER_ABI_VERSION_MINOR + 3u);
  EXPECT_EQ(info.negotiated_minor, static_cast<uint32_t>(EMBER_ABI_VERSION_MINOR));
  EXPECT_EQ(info.num_kernels, 3);
  EXPECT_EQ(info.skipped_ops, std::vector<std::string>{"op_of_a_later_minor"});
  EXPECT_EQ(kernel_ops("future"), (std::set<std::string>{"neg", "abs", "max_pool2d_backward"}));
  const std::string warning = "plugin 'future_minor' (ABI 1." + std::to_string(EMBER_ABI_VERSION_MINOR + 3) +
                              ") registers a kernel for 'op_of_a_later_minor', an op this core's catalogue (ABI 1." +
                              std::to_string(EMBER_ABI_VERSION_MINOR) + ") does not know: skipped";
  EXPECT_NE(capture.text().find(warning), std::string::npos) << capture.text();
  EXPECT_EQ(negated_on("future"), kNegated);
}

TEST(AbiCompat, V1_0PluginRunsInThisCore) {
  load_v1_0_plugin();
  const PluginInfo info = load_plugin(test_plugin_path("v1_0_minor"));
  EXPECT_EQ(info.abi_minor, 0u);
  EXPECT_EQ(info.negotiated_minor, 0u);
  EXPECT_TRUE(info.skipped_ops.empty());
  EXPECT_EQ(negated_on("v1_0"), kNegated);
}

// max_pool2d_backward came with 1.1, but 1.0 plugins could register it (the
// catalogue had it before its minor did): accepted, with a debug line.
TEST(AbiCompat, V1_0PluginKeepsItsKernelForAnOpOfALaterMinor) {
  const std::string& logged = load_v1_0_plugin();
  EXPECT_EQ(kernel_ops("v1_0"), (std::set<std::string>{"neg", "abs", "max_pool2d_backward"}));
  EXPECT_NE(logged.find("plugin 'v1_0_minor' (ABI 1.0) registers 'max_pool2d_backward', an op of ABI 1.1: accepted"),
            std::string::npos)
      << logged;
  EXPECT_EQ(logged.find("does not know"), std::string::npos) << logged;
}

// A 1.0 plugin cannot read a status; the host's own message reaches the user.
TEST(AbiCompat, V1_0PluginPassesTheHostsStatusOn) {
  load_v1_0_plugin();
  const std::string message = scratch_error_on("v1_0");
  EXPECT_NE(message.find("out of memory on v1_0:0: tried to allocate 2097152 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("said: the device has 1 MiB"), std::string::npos) << message;
  EXPECT_EQ(message.find("scratch refused"), std::string::npos) << message;
}

// The 1.1 thread-count slots lie past a 1.0 plugin's table: the core sets
// the CPU plugin's count and leaves the 1.0 plugin alone.
TEST(AbiCompat, V1_0PluginIsLeftOutOfTheThreadCount) {
  load_v1_0_plugin();
  const int initial = get_num_threads();
  set_num_threads(3);
  EXPECT_EQ(get_num_threads(), 3);
  EXPECT_EQ(negated_on("v1_0"), kNegated);
  set_num_threads(initial);
}

// status_code and status_message read the status allocate_scratch returned.
TEST(AbiCompat, CurrentMinorPluginReadsTheHostsStatus) {
  const PluginInfo info = load_plugin(test_plugin_path("current_minor"));
  EXPECT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.negotiated_minor, static_cast<uint32_t>(EMBER_ABI_VERSION_MINOR));
  EXPECT_EQ(kernel_ops("current"), (std::set<std::string>{"neg", "abs", "max_pool2d_backward"}));
  const std::string message = scratch_error_on("current");
  EXPECT_NE(message.find("scratch refused (code " + std::to_string(EMBER_STATUS_OUT_OF_MEMORY) +
                         "): out of memory on current:0: tried to allocate 2097152 bytes"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("said: the device has 1 MiB"), std::string::npos) << message;
}

// No device, no register_kernels (a code generator, a collective engine).
TEST(AbiCompat, PluginWithoutDeviceOrKernelsLoadsAndIsListed) {
  const PluginInfo info = load_plugin(test_plugin_path("no_kernels"));
  EXPECT_TRUE(info.loaded) << info.error;
  EXPECT_EQ(info.device_type, "");
  EXPECT_EQ(info.num_kernels, 0);
  const std::vector<PluginInfo> all = plugins();
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const PluginInfo& p) {
    return p.name == "no_kernels" && p.loaded && p.version == "0.1";
  }));
}

// --- simulated hosts of other minors ---------------------------------------

struct FakeStatus {
  ember_status_code code;
  std::string message;
};

ember_status* fake_status_create(ember_status_code code, const char* message) {
  return reinterpret_cast<ember_status*>(new FakeStatus{code, message});
}
void fake_status_destroy(ember_status* status) { delete reinterpret_cast<FakeStatus*>(status); }
ember_status_code fake_status_code(const ember_status* status) {
  return reinterpret_cast<const FakeStatus*>(status)->code;
}
const char* fake_status_message(const ember_status* status) {
  return reinterpret_cast<const FakeStatus*>(status)->message.c_str();
}
void fake_log(ember_log_level, const char*, const char*) {}
ember_status* fake_register_kernel(ember_registrar* registrar, const ember_kernel_registration* kernel) {
  reinterpret_cast<std::vector<ember_kernel_registration>*>(registrar)->push_back(*kernel);
  return nullptr;
}

// A host table of the fakes above, claiming `struct_size` and `minor`.
ember_host_api fake_host(uint32_t struct_size, uint32_t minor) {
  return {struct_size,        EMBER_ABI_VERSION_MAJOR, minor,    nullptr,
          fake_status_create, fake_status_destroy,     fake_log, fake_register_kernel,
          fake_status_code,   fake_status_message};
}

// A 1.0 core's register_kernel: an op of a later minor is an error there.
ember_status* v1_0_register_kernel(ember_registrar* registrar, const ember_kernel_registration* kernel) {
  const std::vector<CatalogueOp> catalogue = catalogue_ops();
  const bool in_v1_0 = std::any_of(catalogue.begin(), catalogue.end(), [&](const CatalogueOp& op) {
    return op.abi_minor == 0 && op.name == kernel->op_name;
  });
  if (!in_v1_0) return fake_status_create(EMBER_STATUS_INVALID_ARGUMENT, "unknown op");
  return fake_register_kernel(registrar, kernel);
}

// Slots past a 1.0 host's struct_size: a plugin that calls them fails the test.
int g_calls_past_struct_size = 0;
ember_status_code status_code_past_struct_size(const ember_status*) {
  ++g_calls_past_struct_size;
  return EMBER_STATUS_OK;
}
const char* status_message_past_struct_size(const ember_status*) {
  ++g_calls_past_struct_size;
  return "";
}

// Opens a copy of a plugin the core never loads, so that `host` is the only
// host it sees, and initialises it into a plugin struct with room to spare.
struct StandalonePlugin {
  void* library = nullptr;
  struct {
    ember_plugin known;
    char room_for_later_fields[64];
  } plugin{};

  StandalonePlugin(const std::string& name, const ember_host_api* host) {
    library = dlopen(test_plugin_path(name).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      ADD_FAILURE() << dlerror();
      return;
    }
    auto init = reinterpret_cast<ember_plugin_init_fn>(dlsym(library, EMBER_PLUGIN_INIT_SYMBOL));
    if (init == nullptr) {
      ADD_FAILURE() << "no entry point in " << name;
      return;
    }
    plugin.known.struct_size = sizeof(plugin);
    EXPECT_EQ(init(host, &plugin.known), nullptr);
    EXPECT_EQ(plugin.known.abi_major, static_cast<uint32_t>(EMBER_ABI_VERSION_MAJOR));
    EXPECT_LE(plugin.known.struct_size, sizeof(plugin));
  }
  ~StandalonePlugin() {
    if (library != nullptr) dlclose(library);
  }
  StandalonePlugin(const StandalonePlugin&) = delete;
  StandalonePlugin& operator=(const StandalonePlugin&) = delete;

  std::vector<ember_kernel_registration> register_kernels() {
    std::vector<ember_kernel_registration> kernels;
    if (plugin.known.register_kernels == nullptr) {
      ADD_FAILURE() << "register_kernels is NULL";
      return kernels;
    }
    EXPECT_EQ(plugin.known.register_kernels(reinterpret_cast<ember_registrar*>(&kernels)), nullptr);
    return kernels;
  }
};

const ember_kernel_registration* find_kernel(const std::vector<ember_kernel_registration>& kernels, const char* op) {
  for (const auto& kernel : kernels) {
    if (std::strcmp(kernel.op_name, op) == 0) return &kernel;
  }
  ADD_FAILURE() << "no kernel for " << op;
  return nullptr;
}

std::vector<std::string> op_names(const std::vector<ember_kernel_registration>& kernels) {
  std::vector<std::string> names;
  for (const auto& kernel : kernels) names.emplace_back(kernel.op_name);
  return names;
}

ember_status* g_scratch_status = nullptr;  // what fake_allocate_scratch returns
ember_status* fake_allocate_scratch(const ember_kernel_call*, size_t, void** ptr) {
  *ptr = nullptr;
  return g_scratch_status;
}

// Runs a registered float32 unary kernel on {1, -2, 3}.
ember_status* run_kernel(const ember_kernel_registration& kernel, float* result) {
  static float values[3] = {1, -2, 3};
  static int64_t shape[1] = {3}, strides[1] = {1};
  static DLTensor x{values, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, strides, 0};
  DLTensor out{result, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, strides, 0};
  ember_kernel_call call{};
  call.struct_size = sizeof call;
  call.op_name = kernel.op_name;
  call.inputs = &x;
  call.num_inputs = 1;
  call.outputs = &out;
  call.num_outputs = 1;
  call.allocate_scratch = fake_allocate_scratch;
  return kernel.kernel(&call, kernel.kernel_data);
}

TEST(AbiCompat, V1_0PluginAcceptsANewerMinorHost) {
  struct FutureHost {
    ember_host_api known;
    void* function_added_later;
  };
  static FutureHost host{};
  host.known = fake_host(sizeof(FutureHost), EMBER_ABI_VERSION_MINOR + 1);
  StandalonePlugin v1_0("v1_0_minor_standalone", &host.known);
  EXPECT_EQ(v1_0.plugin.known.abi_minor, 0u);
  const std::vector<ember_kernel_registration> kernels = v1_0.register_kernels();
  EXPECT_EQ(op_names(kernels), (std::vector<std::string>{"neg", "abs", "max_pool2d_backward"}));
  const ember_kernel_registration* neg_kernel = find_kernel(kernels, "neg");
  ASSERT_NE(neg_kernel, nullptr);
  float result[3] = {};
  ASSERT_EQ(run_kernel(*neg_kernel, result), nullptr);
  EXPECT_EQ(std::vector<float>(result, result + 3), (std::vector<float>{-1, 2, -3}));
}

// A plugin of this minor in a core that serves 1.0: it registers no op of a
// later minor (a 1.0 core would quarantine it) and calls no host function
// past the 1.0 table, so it passes statuses on instead of reading them.
TEST(AbiCompat, CurrentMinorPluginRunsUnderAV1_0Host) {
  static ember_host_api host{};
  host = fake_host(EMBER_HOST_API_SIZE_V1_0, 0);
  host.register_kernel = v1_0_register_kernel;
  host.status_code = status_code_past_struct_size;
  host.status_message = status_message_past_struct_size;
  g_calls_past_struct_size = 0;
  StandalonePlugin current("current_minor_standalone", &host);
  EXPECT_EQ(current.plugin.known.abi_minor, static_cast<uint32_t>(EMBER_ABI_VERSION_MINOR));
  const std::vector<ember_kernel_registration> kernels = current.register_kernels();
  EXPECT_EQ(op_names(kernels), (std::vector<std::string>{"neg", "abs"}));
  const ember_kernel_registration* abs_kernel = find_kernel(kernels, "abs");
  ASSERT_NE(abs_kernel, nullptr);
  g_scratch_status = fake_status_create(EMBER_STATUS_OUT_OF_MEMORY, "no scratch in this host");
  float result[3] = {};
  ember_status* status = run_kernel(*abs_kernel, result);
  EXPECT_EQ(status, g_scratch_status) << "the plugin did not pass the host's status on";
  fake_status_destroy(status);
  EXPECT_EQ(g_calls_past_struct_size, 0);
}

// Under a host of its own minor, the same plugin reads the status it got.
TEST(AbiCompat, CurrentMinorPluginReadsStatusesOfAHostOfItsMinor) {
  static ember_host_api host{};
  host = fake_host(sizeof(ember_host_api), EMBER_ABI_VERSION_MINOR);
  StandalonePlugin current("current_minor_standalone", &host);
  const std::vector<ember_kernel_registration> kernels = current.register_kernels();
  EXPECT_EQ(op_names(kernels), (std::vector<std::string>{"neg", "abs", "max_pool2d_backward"}));
  const ember_kernel_registration* abs_kernel = find_kernel(kernels, "abs");
  ASSERT_NE(abs_kernel, nullptr);
  g_scratch_status = fake_status_create(EMBER_STATUS_OUT_OF_MEMORY, "no scratch in this host");
  float result[3] = {};
  ember_status* status = run_kernel(*abs_kernel, result);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(fake_status_code(status), EMBER_STATUS_OUT_OF_MEMORY);
  EXPECT_STREQ(fake_status_message(status), "scratch refused (code 4): no scratch in this host");
  fake_status_destroy(status);
}

}  // namespace
}  // namespace ember
