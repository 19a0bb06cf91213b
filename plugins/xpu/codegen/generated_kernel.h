// Generated programs on the plugin's devices: compiling EKIR into a blob of
// program binaries, and a kernel loaded from one.
#pragma once

#include <ember/ember_plugin.h>
#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/code_generator.hpp>

#include <mutex>
#include <string>
#include <vector>

#include "../opencl.h"
#include "opencl_source.h"

namespace ember::xpu::codegen {

// What decides a device's program binary besides the source: the
// platform, device, driver and OpenCL C versions and the build options.
// UNAVAILABLE (with the reason) when the plugin has no device.
std::string devices_fingerprint();

// Builds `ir` for every device; UNIMPLEMENTED with the compiler's log when
// a device's compiler refuses it (EMBER_XPU_CODEGEN_OPTIONS adds options).
sdk::CompiledKernel compile_kernel(std::string_view ir);

class GeneratedKernel {
 public:
  // INVALID_ARGUMENT for a blob this plugin did not write, or one built
  // for a device other than the one at its ordinal now (the core then
  // compiles the kernel again): such a program is never launched.
  GeneratedKernel(const void* blob, size_t size);
  ~GeneratedKernel();
  GeneratedKernel(const GeneratedKernel&) = delete;
  GeneratedKernel& operator=(const GeneratedKernel&) = delete;

  void launch(const ember_codegen_launch_args& args);

 private:
  kernel_ir::Kernel kernel_;
  kernel_ir::GroupKernel source_;
  std::vector<cl_program> programs_;  // per device ordinal
  std::vector<cl_kernel> kernels_;
  std::mutex mutex_;  // a cl_kernel's arguments are set and enqueued under it
};

}  // namespace ember::xpu::codegen
