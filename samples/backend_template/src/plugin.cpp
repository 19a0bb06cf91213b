// Entry point of the emulated-accelerator plugin.
#include <ember/ember_plugin.hpp>

#include "device_api.h"
#include "emu_device.h"
#include "kernels/kernels.h"

namespace emu {
namespace {

// [guide:register]
void register_kernels(ember_registrar* registrar) {
  const ember::sdk::Registrar r(registrar);
  register_elementwise_kernels(r);
  register_reduce_kernels(r);
  register_matmul_kernels(r);
  register_index_kernels(r);
}
// [/guide:register]

void shutdown() { release_emu_device(); }

// [guide:init]
// The plugin's table; EMBER_PLUGIN_ENTRY exports the ember_plugin_init that
// stamps the SDK's ABI version on it and writes only as much as the core's
// struct_size has room for.
ember_plugin describe_plugin() {
  ember_plugin plugin{};
  plugin.name = "emu";
  plugin.version = "0.1.0";
  plugin.device = device_api();
  plugin.register_kernels = ember::sdk::fenced<register_kernels>;
  plugin.shutdown = shutdown;
  return plugin;
}

}  // namespace
}  // namespace emu

EMBER_PLUGIN_ENTRY(emu::describe_plugin)
// [/guide:init]
