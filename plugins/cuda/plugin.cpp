// Entry point of the GPU plugin: "cuda" when built with nvcc, "rocm" when
// the same sources are built with hipcc (EMBER_GPU_HIP).
#include <ember/ember_plugin.hpp>

#include "device_api.h"
#include "host_staging.h"
#include "kernels/kernels.h"
#include "runtime_error.h"

namespace ember::gpu {

namespace {

// Kernels are registered whether or not a device is present; without one,
// every call reports UNAVAILABLE with the runtime's reason.
ember_status* register_kernels(ember_registrar* registrar) {
  return sdk::fence([&] {
    const sdk::Registrar r(registrar);
    register_unary_kernels(r);
    register_binary_kernels(r);
    register_copy_kernels(r);
    register_factory_kernels(r);
    register_reduce_kernels(r);
    register_index_kernels(r);
    register_sort_kernels(r);
    register_matmul_kernels(r);
  });
}

void shutdown() {
  release_matmul();
  release_staging();
}

}  // namespace

}  // namespace ember::gpu

extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  ember::sdk::set_host(host);
  return ember::sdk::fence([&] {
    ember_plugin mine{};
    mine.abi_major = EMBER_ABI_VERSION_MAJOR;
    mine.abi_minor = EMBER_ABI_VERSION_MINOR;
    mine.name = ember::gpu::device_type_name();
    mine.version = EMBER_GPU_PLUGIN_VERSION;
    mine.device = ember::gpu::device_api();
    mine.register_kernels = ember::gpu::register_kernels;
    mine.shutdown = ember::gpu::shutdown;
    ember::sdk::write_struct(plugin, mine);
  });
}
