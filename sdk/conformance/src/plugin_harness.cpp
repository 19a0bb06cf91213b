#include "plugin_harness.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <filesystem>
#include <stdexcept>

namespace ember::conformance {

namespace fs = std::filesystem;

namespace {

// The harness's side of the opaque ember_status handle.
struct HarnessStatus {
  ember_status_code code;
  std::string message;
};

ember_status* status_create(ember_status_code code, const char* message) {
  if (code == EMBER_STATUS_OK) return nullptr;
  return reinterpret_cast<ember_status*>(new HarnessStatus{code, message != nullptr ? message : ""});
}

void status_destroy(ember_status* status) { delete reinterpret_cast<HarnessStatus*>(status); }

ember_status_code status_code(const ember_status* status) {
  return status != nullptr ? reinterpret_cast<const HarnessStatus*>(status)->code : EMBER_STATUS_OK;
}

const char* status_message(const ember_status* status) {
  return status != nullptr ? reinterpret_cast<const HarnessStatus*>(status)->message.c_str() : "";
}

// Plugin log lines are not part of the verdict.
void log_ignored(ember_log_level, const char*, const char*) {}

// The registrar handle is the registration list itself.
struct Registration {
  std::vector<RegisteredKernel>* kernels;
  std::vector<std::string>* errors;
};

ember_status* register_kernel(ember_registrar* registrar, const ember_kernel_registration* kernel) {
  auto* registration = reinterpret_cast<Registration*>(registrar);
  auto refuse = [&](const std::string& reason) {
    registration->errors->push_back(reason);
    return status_create(EMBER_STATUS_INVALID_ARGUMENT, reason.c_str());
  };
  if (kernel == nullptr) return refuse("register_kernel called with NULL");
  if (kernel->op_name == nullptr) return refuse("a kernel was registered without an op name");
  const std::string op = kernel->op_name;
  if (kernel->kernel == nullptr) return refuse("kernel for '" + op + "' is NULL");
  if (static_cast<int>(kernel->dtype) < 0 || kernel->dtype >= EMBER_DTYPE_COUNT_V1_0) {
    return refuse("kernel for '" + op + "' has undefined dtype " + std::to_string(kernel->dtype));
  }
  for (const RegisteredKernel& k : *registration->kernels) {
    if (k.op == op && k.dtype == kernel->dtype) return refuse("'" + op + "' is registered twice for one dtype");
  }
  registration->kernels->push_back({op, kernel->dtype, kernel->kernel, kernel->kernel_data, kernel->flags});
  return nullptr;
}

const ember_host_api& current_host() {
  static const ember_host_api host = {
      .struct_size = sizeof(ember_host_api),
      .abi_major = EMBER_ABI_VERSION_MAJOR,
      .abi_minor = EMBER_ABI_VERSION_MINOR,
      .extension = nullptr,
      .status_create = status_create,
      .status_destroy = status_destroy,
      .log = log_ignored,
      .register_kernel = register_kernel,
      .status_code = status_code,
      .status_message = status_message,
  };
  return host;
}

// Host tables other than the current one, kept until the process ends: a
// plugin may keep the table it was initialised with (ember_plugin.h).
const ember_host_api* host_for(const HostVersion& version) {
  if (version.minor == EMBER_ABI_VERSION_MINOR && version.extra_bytes == 0 && version.truncate_to == 0) {
    return &current_host();
  }
  static auto* kept = new std::deque<std::vector<std::byte>>();  // never freed, see above
  std::vector<std::byte>& bytes = kept->emplace_back(sizeof(ember_host_api) + version.extra_bytes);
  ember_host_api host = current_host();
  host.abi_minor = version.minor;
  host.struct_size = version.truncate_to != 0 ? version.truncate_to : sizeof(ember_host_api) + version.extra_bytes;
  std::memcpy(bytes.data(), &host, sizeof host);
  return reinterpret_cast<const ember_host_api*>(bytes.data());
}

constexpr unsigned char kGuardByte = 0xA5;
constexpr size_t kGuardBytes = 64;

}  // namespace

StatusCopy take_status(ember_status* status) {
  if (status == nullptr) return {};
  auto* s = reinterpret_cast<HarnessStatus*>(status);
  StatusCopy copy{false, s->code, s->message};
  delete s;
  return copy;
}

PluginHarness::PluginHarness(const std::string& path) {
  if (!fs::is_regular_file(path)) throw std::runtime_error("no such plugin file: " + path);
  std::string pattern = (fs::temp_directory_path() / "ember-conformance-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot make a temporary directory in " + pattern);
  temp_dir_ = pattern;
  library_path_ = (fs::path(temp_dir_) / fs::path(path).filename()).string();
  try {
    fs::copy_file(path, library_path_);
    open();
  } catch (...) {
    fs::remove_all(temp_dir_);
    throw;
  }
}

PluginHarness::~PluginHarness() {
  close();
  std::error_code ignored;
  fs::remove_all(temp_dir_, ignored);
}

void PluginHarness::open() {
  dlerror();
  handle_ = dlopen(library_path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error(std::string("dlopen failed: ") + (why != nullptr ? why : "unknown error"));
  }
}

void PluginHarness::close() {
  if (handle_ == nullptr) return;
  const size_t limit = plugin_.struct_size;
  if (offsetof(ember_plugin, shutdown) < limit && plugin_.shutdown != nullptr) plugin_.shutdown();
  dlclose(handle_);
  handle_ = nullptr;
  plugin_ = ember_plugin{};
  kernels_.clear();
  registration_errors_.clear();
}

PluginHarness::InitResult PluginHarness::init(const HostVersion& version, size_t plugin_struct_size) {
  auto init_fn = reinterpret_cast<ember_plugin_init_fn>(dlsym(handle_, EMBER_PLUGIN_INIT_SYMBOL));
  if (init_fn == nullptr) throw std::runtime_error("entry symbol '" EMBER_PLUGIN_INIT_SYMBOL "' not found");
  // The plugin struct sits in a buffer with guard bytes after the size it is told.
  std::vector<unsigned char> buffer(sizeof(ember_plugin) + kGuardBytes, kGuardByte);
  std::memset(buffer.data(), 0, plugin_struct_size);
  ember_plugin header{};
  header.struct_size = plugin_struct_size;
  std::memcpy(buffer.data(), &header, sizeof(size_t));
  auto* plugin = reinterpret_cast<ember_plugin*>(buffer.data());
  InitResult result;
  result.status = take_status(init_fn(host_for(version), plugin));
  for (size_t i = plugin_struct_size; i < buffer.size(); ++i) result.guard_intact &= buffer[i] == kGuardByte;
  std::memcpy(&result.plugin, buffer.data(), std::min(plugin_struct_size, sizeof(ember_plugin)));
  return result;
}

void PluginHarness::init_and_register() {
  InitResult result = init(HostVersion{});
  if (!result.status.ok) throw std::runtime_error("ember_plugin_init failed: " + result.status.message);
  plugin_ = result.plugin;
  kernels_.clear();
  registration_errors_.clear();
  if (plugin_.register_kernels == nullptr) return;  // a plugin without kernels (ABI 1.1)
  Registration registration{&kernels_, &registration_errors_};
  const StatusCopy status = take_status(plugin_.register_kernels(reinterpret_cast<ember_registrar*>(&registration)));
  if (!status.ok) throw std::runtime_error("register_kernels failed: " + status.message);
}

bool PluginHarness::reload() {
  close();
  void* still_there = dlopen(library_path_.c_str(), RTLD_NOW | RTLD_NOLOAD);
  const bool unloaded = still_there == nullptr;
  if (still_there != nullptr) dlclose(still_there);
  open();
  return unloaded;
}

const RegisteredKernel* PluginHarness::find_kernel(const std::string& op, ember_dtype dtype) const {
  for (const RegisteredKernel& k : kernels_) {
    if (k.op == op && k.dtype == dtype) return &k;
  }
  return nullptr;
}

}  // namespace ember::conformance
