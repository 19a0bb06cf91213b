// The CUDA plugin's code generator (ABI 1.2): EKIR kernels for cuda
// tensors, written as CUDA C++, compiled by NVRTC for each device's
// architecture and loaded through the CUDA runtime (docs/gpu.md, "Compiled
// kernels"). Built where NVRTC is found; the ROCm build has none.
#pragma once

#include <ember/ember_plugin.h>

namespace ember::gpu::codegen {

const ember_codegen_extension& codegen_extension();

}  // namespace ember::gpu::codegen
