#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <ember/ember_plugin.h>

#include "ember/device.h"

namespace ember::plugin {

// Note [Code generators]
// A plugin carrying an ember_codegen_extension (ABI 1.2) is the code
// generator of one device type; the core keeps at most one per type. Every
// call goes through this class: it turns statuses into errors, serialises
// what the plugin did not declare thread-safe, and quarantines a generator
// that fails in a way a status cannot excuse (an INTERNAL status, an
// exception, a load of its own blob failing), after which compiled code for
// its device runs eagerly with that reason.
class CodegenProvider {
 public:
  CodegenProvider(std::string plugin_name, std::string plugin_version, uint32_t abi_minor,
                  const ember_codegen_extension& table);

  const std::string& plugin_name() const { return plugin_name_; }
  const std::string& plugin_version() const { return plugin_version_; }
  uint32_t abi_minor() const { return abi_minor_; }
  const std::string& device_type() const { return device_type_; }
  bool reads_ir(const std::string& version) const { return ir_versions_.count(version) > 0; }
  bool supports_op(const std::string& op) const { return ops_.count(op) > 0; }
  bool supports_dtype(const std::string& dtype) const { return dtypes_.count(dtype) > 0; }

  // Empty when usable; else why compiled code runs eagerly.
  std::string unavailable_reason() const;
  // The generator's fingerprint text (computed once); throws when
  // unavailable.
  const std::string& fingerprint() const;

  struct Compiled {
    std::string binary, source, log;
  };
  // Throws an ember::Error carrying the generator's message.
  Compiled compile(const std::string& ir, const std::string& options) const;
  ember_codegen_kernel_t load(const std::string& blob) const;
  // `kernel_name` (what the kernel computes) goes into the error of a
  // failed launch.
  void launch(ember_codegen_kernel_t kernel, const ember_codegen_launch_args& args, const std::string& kernel_name) const;
  void unload(ember_codegen_kernel_t kernel) const noexcept;
  // From now on compiled code for this device runs eagerly, with `reason`.
  void quarantine(const std::string& reason) const;

 private:
  const std::string& fingerprint_or_reason() const;
  void check(ember_status* status, const std::string& what, bool internal_quarantines) const;

  std::string plugin_name_;
  std::string plugin_version_;
  uint32_t abi_minor_;
  std::string device_type_;
  ember_codegen_extension table_;
  std::set<std::string> ir_versions_, ops_, dtypes_;
  mutable std::recursive_mutex compile_lock_, launch_lock_;
  mutable std::mutex state_lock_;
  mutable bool fingerprint_done_ = false;
  mutable std::string fingerprint_;
  mutable std::string unavailable_;
};

// The code generator of a device type, or null.
const CodegenProvider* codegen_for(const std::string& device_type);
// Every code generator loaded, for plugin listings.
std::vector<const CodegenProvider*> codegen_providers();

// The loader's side: the record on the plugin's extension chain, checked
// (null if none or the session's minor predates it); throws the reason for
// quarantine if it is malformed or its device type already has one.
const ember_codegen_extension* find_codegen_extension(const ember_plugin& plugin, uint32_t negotiated_minor);
void add_codegen_provider(const std::string& plugin_name, const std::string& version, uint32_t abi_minor,
                          const ember_codegen_extension& table);

}  // namespace ember::plugin
