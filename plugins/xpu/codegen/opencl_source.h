// EKIR -> OpenCL C: the program of one kernel, `ek_kernel`, a group kernel
// (Note [Group kernels] in the SDK's group_kernel.cpp) after the prelude
// its helpers come from.
#pragma once

#include <ember/kernel_ir/group_kernel.h>

namespace ember::xpu::codegen {

// The kernel, its `text` the whole program's source.
kernel_ir::GroupKernel generate_opencl_source(const kernel_ir::Kernel& kernel);

}  // namespace ember::xpu::codegen
