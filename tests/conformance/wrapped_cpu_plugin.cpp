// Another build of the CPU plugin for the kit's tests: a plugin that loads a
// private copy of the build's CPU plugin (WRAPPED_PLUGIN_PATH) and passes
// every registration through but those of the op LEFT_OUT (none when it is
// empty; "arange" leaves the kit's models unable to train). PROXY_NAME and
// PROXY_DEVICE_TYPE name the plugin and its device type ("cpu", as the CPU
// plugin's own, for a second CPU plugin).
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include <ember/ember_plugin.hpp>

namespace {

namespace fs = std::filesystem;
namespace sdk = ember::sdk;

ember_host_api g_filtering_host{};
ember_device_api g_device{};

ember_status* register_unless_left_out(ember_registrar* registrar, const ember_kernel_registration* kernel) {
  if (kernel != nullptr && kernel->op_name != nullptr && std::strcmp(kernel->op_name, LEFT_OUT) == 0) return nullptr;
  return sdk::host()->register_kernel(registrar, kernel);
}

// The wrapped plugin's entry point in a copy of its file, loaded once per
// instance of this library: the core and the kit's harness each load their
// own instance, and each must drive a CPU plugin of its own.
ember_plugin_init_fn wrapped_init() {
  static const ember_plugin_init_fn init = []() -> ember_plugin_init_fn {
    std::string dir = (fs::temp_directory_path() / "ember-wrapped-cpu-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) return nullptr;
    const fs::path copy = fs::path(dir) / "libwrapped_cpu.so";
    std::error_code error;
    fs::copy_file(WRAPPED_PLUGIN_PATH, copy, error);
    void* handle = error ? nullptr : dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
    fs::remove_all(dir, error);
    return handle != nullptr ? reinterpret_cast<ember_plugin_init_fn>(dlsym(handle, EMBER_PLUGIN_INIT_SYMBOL))
                             : nullptr;
  }();
  return init;
}

// The wrapped plugin's table, its device renamed; the SDK stamps this
// tree's ABI version on it, the wrapped plugin's own.
ember_plugin describe_plugin() {
  const ember_plugin_init_fn init = wrapped_init();
  if (init == nullptr) sdk::fail(EMBER_STATUS_UNAVAILABLE, "cannot load a copy of " WRAPPED_PLUGIN_PATH);
  // The wrapped plugin sees the host as it is, bar register_kernel.
  const ember_host_api* host = sdk::host();
  g_filtering_host = ember_host_api{};
  std::memcpy(&g_filtering_host, host, std::min(host->struct_size, sizeof(ember_host_api)));
  g_filtering_host.struct_size = std::min(host->struct_size, sizeof(ember_host_api));
  g_filtering_host.register_kernel = register_unless_left_out;
  ember_plugin wrapped{};
  wrapped.struct_size = sizeof wrapped;
  sdk::check(init(&g_filtering_host, &wrapped));
  g_device = *wrapped.device;
  g_device.device_type = PROXY_DEVICE_TYPE;
  wrapped.name = PROXY_NAME;
  wrapped.device = &g_device;
  return wrapped;
}

}  // namespace

EMBER_PLUGIN_ENTRY(describe_plugin)
