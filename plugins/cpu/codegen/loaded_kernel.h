// A kernel loaded from a blob: its shared object opened from memory, its
// entry point, and its IR for the launch checks.
#ifndef EMBER_PLUGINS_CPU_CODEGEN_LOADED_KERNEL_H_
#define EMBER_PLUGINS_CPU_CODEGEN_LOADED_KERNEL_H_

#include <ember/ember_plugin.h>

#include <cstddef>

#include "cpp_dialect.h"
#include "kernel_entry.h"

namespace ember::cpu_codegen {

class LoadedKernel {
 public:
  // INVALID_ARGUMENT for a blob write_blob did not write or whose library
  // does not load.
  LoadedKernel(const void* blob, size_t size);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  // Checks the launch (launch_checks.h), runs the kernel on the calling
  // thread and the plugin's pool (Note [Kernel parallel loop]), and turns
  // its faults into statuses.
  void launch(const ember_codegen_launch_args& args) const;

 private:
  Kernel kernel_;
  void* library_ = nullptr;
  ek_kernel_entry entry_ = nullptr;
};

}  // namespace ember::cpu_codegen

#endif  // EMBER_PLUGINS_CPU_CODEGEN_LOADED_KERNEL_H_
