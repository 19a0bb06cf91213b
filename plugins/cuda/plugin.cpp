// Entry point of the GPU plugin: "cuda" when built with nvcc, "rocm" when
// the same sources are built with hipcc (EMBER_GPU_HIP). The CUDA build
// carries the code generator where NVRTC was found (EMBER_GPU_HAS_NVRTC).
#include <ember/ember_plugin.hpp>

#if defined(EMBER_GPU_HAS_NVRTC)
#include "codegen/extension.h"
#endif
#include "device_api.h"
#include "host_staging.h"
#include "kernels/kernels.h"
#include "native_handles.h"
#include "runtime_error.h"

namespace ember::gpu {

namespace {

// Kernels are registered whether or not a device is present; without one,
// every call reports UNAVAILABLE with the runtime's reason.
void register_kernels(ember_registrar* registrar) {
  const sdk::Registrar r(registrar);
  register_unary_kernels(r);
  register_binary_kernels(r);
  register_copy_kernels(r);
  register_factory_kernels(r);
  register_reduce_kernels(r);
  register_index_kernels(r);
  register_sort_kernels(r);
  register_matmul_kernels(r);
}

void shutdown() {
  release_matmul();
  release_staging();
}

ember_plugin describe_plugin() {
  ember_plugin plugin{};
  plugin.name = device_type_name();
  plugin.version = EMBER_GPU_PLUGIN_VERSION;
  plugin.device = device_api();
  plugin.register_kernels = sdk::fenced<register_kernels>;
  plugin.shutdown = shutdown;
#if defined(EMBER_GPU_HAS_NVRTC)
  plugin.extension = &codegen::codegen_extension().header;  // then native handles, then profiling
#else
  plugin.extension = &native_handles_extension().header;
#endif
  return plugin;
}

}  // namespace

}  // namespace ember::gpu

EMBER_PLUGIN_ENTRY(ember::gpu::describe_plugin)
