// Entry point of the emulated-accelerator plugin.
#include <ember/ember_plugin.hpp>

#include "device_api.h"
#include "emu_device.h"
#include "kernels/kernels.h"

namespace emu {
namespace {

// [guide:register]
ember_status* register_kernels(ember_registrar* registrar) {
  return ember::sdk::fence([&] {
    const ember::sdk::Registrar r(registrar);
    register_elementwise_kernels(r);
    register_reduce_kernels(r);
    register_matmul_kernels(r);
    register_index_kernels(r);
  });
}
// [/guide:register]

void shutdown() { release_emu_device(); }

}  // namespace
}  // namespace emu

// [guide:init]
extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  ember::sdk::set_host(host);
  return ember::sdk::fence([&] {
    ember_plugin mine{};
    mine.abi_major = EMBER_ABI_VERSION_MAJOR;
    mine.abi_minor = EMBER_ABI_VERSION_MINOR;
    mine.name = "emu";
    mine.version = "0.1.0";
    mine.device = emu::device_api();
    mine.register_kernels = emu::register_kernels;
    mine.shutdown = emu::shutdown;
    // Writes only as much as the core's struct_size has room for.
    ember::sdk::write_struct(plugin, mine);
  });
}
// [/guide:init]
