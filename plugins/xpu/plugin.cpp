// Entry point of the XPU plugin: Intel GPUs (and any OpenCL 1.2 device,
// PoCL's CPU device included) through the OpenCL ICD loader.
#include <ember/ember_plugin.hpp>

#include "device_api.h"
#include "devices.h"
#include "dtypes.h"
#include "kernels/kernels.h"
#include "program_cache.h"

namespace ember::xpu {

namespace {

// Kernels are registered for the dtypes every device serves; with no device
// at all the plugin still registers them, and each call reports UNAVAILABLE.
ember_status* register_kernels(ember_registrar* registrar) {
  return sdk::fence([&] {
    const sdk::Registrar r(registrar);
    const std::vector<ember_dtype> dtypes = served_dtypes(Devices::instance().all_have_fp64());
    register_elementwise_kernels(r, dtypes);
    register_factory_kernels(r, dtypes);
    register_reduce_kernels(r, dtypes);
    register_index_kernels(r, dtypes);
    register_line_kernels(r, dtypes);
    register_matmul_kernels(r, dtypes);
  });
}

void shutdown() {
  release_programs();
  Devices::instance().release();
}

}  // namespace

}  // namespace ember::xpu

extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  ember::sdk::set_host(host);
  return ember::sdk::fence([&] {
    ember_plugin mine{};
    mine.abi_major = EMBER_ABI_VERSION_MAJOR;
    mine.abi_minor = EMBER_ABI_VERSION_MINOR;
    mine.name = "xpu";
    mine.version = EMBER_XPU_PLUGIN_VERSION;
    mine.device = ember::xpu::device_api();
    mine.register_kernels = ember::xpu::register_kernels;
    mine.shutdown = ember::xpu::shutdown;
    ember::sdk::write_struct(plugin, mine);
  });
}
