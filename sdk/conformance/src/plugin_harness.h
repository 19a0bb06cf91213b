// Loads a private copy of a plugin library and drives it through the C ABI
// with the kit's own host table, beside (never through) the core.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ember/ember_plugin.h>

namespace ember::conformance {

// Note [Private plugin copy]
// The core may already have loaded the plugin (it is also the device under
// test), and dlopen() of the same file returns the same handle, whose
// globals the core's init filled. The harness therefore copies the library
// to a temporary file and loads that: a second, independent instance whose
// init, registration, shutdown and unload the ABI suite may exercise freely
// without disturbing the instance the core uses.

// A kernel as the plugin registered it with the harness.
struct RegisteredKernel {
  std::string op;
  ember_dtype dtype;
  ember_kernel_fn fn;
  void* data;
  uint32_t flags;
};

// A status the harness received: its code and message, already destroyed.
struct StatusCopy {
  bool ok = true;
  ember_status_code code = EMBER_STATUS_OK;
  std::string message;
};

// Takes ownership of `status` (made by the harness's status_create).
StatusCopy take_status(ember_status* status);

// What a host table claims about itself when it calls the entry point.
struct HostVersion {
  uint32_t minor = EMBER_ABI_VERSION_MINOR;
  // Extra bytes after ember_host_api, as a newer host would have.
  size_t extra_bytes = 0;
  // Smaller than sizeof(ember_host_api): an older host.
  size_t truncate_to = 0;
};

class PluginHarness {
 public:
  // Copies and dlopen()s `path`; throws std::runtime_error naming the reason.
  explicit PluginHarness(const std::string& path);
  ~PluginHarness();
  PluginHarness(const PluginHarness&) = delete;
  PluginHarness& operator=(const PluginHarness&) = delete;

  // Calls ember_plugin_init with a host table as `version` describes and an
  // ember_plugin of `plugin_struct_size` bytes followed by guard bytes. The
  // returned status is the init's; guard_intact tells whether the plugin
  // wrote past the struct_size it was given.
  struct InitResult {
    StatusCopy status;
    ember_plugin plugin{};
    bool guard_intact = true;
  };
  InitResult init(const HostVersion& version, size_t plugin_struct_size = sizeof(ember_plugin));

  // init() at the current version, then register_kernels; throws on failure.
  void init_and_register();

  // Calls the plugin's shutdown (if any), dlclose()s and dlopen()s the copy
  // again. Returns whether the library really left the process in between
  // (a plugin linked -z nodelete stays).
  bool reload();

  const ember_plugin& plugin() const { return plugin_; }
  const ember_device_api* device() const { return plugin_.device; }
  const std::vector<RegisteredKernel>& kernels() const { return kernels_; }
  const RegisteredKernel* find_kernel(const std::string& op, ember_dtype dtype) const;
  // Registration problems the harness saw (NULL kernel, duplicate, ...).
  const std::vector<std::string>& registration_errors() const { return registration_errors_; }

 private:
  void open();
  void close();

  std::string temp_dir_;
  std::string library_path_;
  void* handle_ = nullptr;
  ember_plugin plugin_{};
  std::vector<RegisteredKernel> kernels_;
  std::vector<std::string> registration_errors_;
};

}  // namespace ember::conformance
