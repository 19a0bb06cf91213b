// Entry point of the XPU plugin: Intel GPUs (and any OpenCL 1.2 device,
// PoCL's CPU device included) through the OpenCL ICD loader.
#include <ember/ember_plugin.hpp>

#include "codegen/extension.h"
#include "device_api.h"
#include "devices.h"
#include "dtypes.h"
#include "kernels/kernels.h"
#include "program_cache.h"

namespace ember::xpu {

namespace {

// Kernels are registered for the dtypes every device serves; with no device
// at all the plugin still registers them, and each call reports UNAVAILABLE.
void register_kernels(ember_registrar* registrar) {
  const sdk::Registrar r(registrar);
  const std::vector<ember_dtype> dtypes = served_dtypes(Devices::instance().all_have_fp64());
  register_elementwise_kernels(r, dtypes);
  register_factory_kernels(r, dtypes);
  register_reduce_kernels(r, dtypes);
  register_index_kernels(r, dtypes);
  register_line_kernels(r, dtypes);
  register_matmul_kernels(r, dtypes);
}

void shutdown() {
  release_programs();
  Devices::instance().release();
}

ember_plugin describe_plugin() {
  ember_plugin plugin{};
  plugin.name = "xpu";
  plugin.version = EMBER_XPU_PLUGIN_VERSION;
  plugin.device = device_api();
  plugin.register_kernels = sdk::fenced<register_kernels>;
  plugin.extension = &codegen::codegen_extension().header;
  plugin.shutdown = shutdown;
  return plugin;
}

}  // namespace

}  // namespace ember::xpu

EMBER_PLUGIN_ENTRY(ember::xpu::describe_plugin)
