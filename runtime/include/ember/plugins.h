#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

// What the core knows about one plugin it tried to load.
struct PluginInfo {
  std::string name;        // from the plugin, or the file name if it never said
  std::string path;        // the shared library
  std::string version;     // the plugin's own version string
  uint32_t abi_major = 0;  // what the plugin was built against
  uint32_t abi_minor = 0;
  uint32_t negotiated_minor = 0;  // min(core minor, plugin minor)
  std::string device_type;        // empty for a plugin without a device
  // The device type whose code the plugin generates (ABI 1.2 codegen
  // extension); empty for a plugin without one.
  std::string codegen_device_type;
  // The collective engine the plugin provides (ABI 1.3), "gloo"; empty for
  // a plugin without one.
  std::string collective_engine;
  // The native API whose stream and device handles the device plugin lends
  // collective engines (ABI 1.3), "cuda"; empty for a plugin without them.
  std::string native_api;
  bool loaded = false;      // false: quarantined, see `error`
  std::string error;        // why it was quarantined
  int64_t num_kernels = 0;  // kernels registered
  // Ops the plugin registered kernels for that this core's catalogue does
  // not know (a newer catalogue's): skipped with a warning, in the order
  // first registered.
  std::vector<std::string> skipped_ops;
};

// Loads a plugin from a file. On failure the plugin is quarantined and an
// ember::Error naming the path and the reason is thrown; the core and the
// other plugins keep working. Loading the same path twice returns the first
// result. A path holding a null byte is a ValueError, and nothing is loaded.
PluginInfo load_plugin(const std::string& path);

// load_plugin() under a plugin name and a device type other than the ones
// the plugin declares, so that a second build of a backend can run beside
// the one that owns its device type (the conformance kit certifies a CPU
// plugin beside the CPU reference this way). A path loaded before gives its
// first result, whatever it was loaded as.
PluginInfo load_plugin_as(const std::string& path, const std::string& name, const std::string& device_type);

// Every plugin tried so far, loaded or quarantined, in load order. The first
// call discovers plugins (Note [Plugin discovery]).
std::vector<PluginInfo> plugins();

// One op of the catalogue (sdk/docs/ops.md) as the core registered it: what
// a plugin may register kernels for.
struct CatalogueOp {
  std::string name;
  int num_inputs = 0;  // -1: any number (cat)
  int num_outputs = 1;
  bool composite = false;  // decomposed by the core; a kernel is an optional fused override
  int abi_minor = 0;       // the ABI minor 1.<abi_minor> that introduced the op
};

// Every op of the catalogue, in the core's registration order.
std::vector<CatalogueOp> catalogue_ops();

// The dtypes one catalogue op has kernels for on one device type.
struct OpKernels {
  std::string op;
  std::vector<DType> dtypes;  // in DType order, never empty
};

// The kernel table of a device type ("cpu", "cuda", ...; the first call
// discovers plugins): every catalogue op with a kernel for at least one dtype,
// in catalogue order. A composite's kernel is a fused override. The meta
// device has none (it runs meta functions). Throws for an unknown type.
std::vector<OpKernels> registered_kernels(const std::string& device_type);

struct DeviceInfo {
  Device device;
  std::string name;
  uint64_t total_memory = 0;
  uint32_t compute_units = 0;
  std::string plugin;
};

// Every device of every loaded plugin, plus the built-in meta device.
std::vector<DeviceInfo> devices();
bool is_device_type_available(const std::string& type_name);
int32_t device_count(const std::string& type_name);
void synchronize(Device device);

// Caching-allocator statistics of one device, in bytes.
struct MemoryStats {
  uint64_t allocated = 0;          // in tensors now
  uint64_t reserved = 0;           // held from the plugin (allocated + cached)
  uint64_t peak_allocated = 0;     // since start or reset_peak_memory_stats
  uint64_t num_allocs = 0;         // requests served
  uint64_t num_cache_hits = 0;     // requests served from the cache
  uint64_t num_device_allocs = 0;  // requests that reached the plugin
};
MemoryStats memory_stats(Device device);
void reset_peak_memory_stats(Device device);
// Returns every cached, unused block to the plugin.
void empty_cache(Device device);

// The kernel watchdog (Note [Kernel watchdog]): a kernel call that does not
// return within `timeout` is an error, and its plugin is marked hung. 0, the
// default unless EMBER_KERNEL_TIMEOUT_MS says otherwise, turns it off.
// Throws for a negative timeout.
void set_kernel_timeout(std::chrono::milliseconds timeout);
std::chrono::milliseconds kernel_timeout();

}  // namespace ember
