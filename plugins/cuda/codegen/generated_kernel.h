// A generated kernel on the plugin's GPUs: loaded from the blob compile
// wrote, once per architecture among the devices, and launched on the
// call's stream (Note [Loading generated kernels]).
#pragma once

#include <ember/ember_plugin.h>
#include <ember/kernel_ir/ekir.h>
#include <ember/kernel_ir/group_kernel.h>

#include <atomic>
#include <memory>
#include <vector>

#include "../gpu_runtime.h"

namespace ember::gpu::codegen {

class GeneratedKernel {
 public:
  // INVALID_ARGUMENT for a blob this generator did not write, or one
  // without a CUBIN for the architecture of some device (the core then
  // compiles the kernel again): such a CUBIN never reaches the driver.
  // UNAVAILABLE without a device.
  GeneratedKernel(const void* blob, size_t size);
  ~GeneratedKernel();
  GeneratedKernel(const GeneratedKernel&) = delete;
  GeneratedKernel& operator=(const GeneratedKernel&) = delete;

  void launch(const ember_codegen_launch_args& args) const;

 private:
  kernel_ir::Kernel kernel_;
  kernel_ir::GroupKernel source_;  // how it launches: groups, fault word
  std::vector<cudaLibrary_t> libraries_;  // one per architecture among the devices
  std::vector<cudaKernel_t> entry_points_;  // ek_kernel, per device ordinal
  // Per device ordinal: whether a launch queued the kernel there, so that
  // the destructor waits for those devices alone.
  std::unique_ptr<std::atomic<bool>[]> launched_;
};

}  // namespace ember::gpu::codegen
