// A kernel of the CUDA generator as the core caches it: compile_kernel
// turns EKIR into CUDA C++ and a CUBIN per architecture inside the SDK's
// kernel blob (Note [Kernel blobs]); load reads the blob back and takes the
// CUBIN of each device's architecture. Nothing here needs a GPU.
#pragma once

#include <ember/kernel_ir/kernel_blob.h>
#include <ember/sdk/code_generator.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ember::gpu::codegen {

// Compiles `ir` for each compute capability in `architectures` (90 for
// sm_90). INVALID_ARGUMENT for EKIR the SDK's reader refuses,
// UNIMPLEMENTED with NVRTC's log for a source NVRTC refuses.
sdk::CompiledKernel compile_kernel(std::string_view ir, const std::vector<int>& architectures);

// The blob compile_kernel wrote; INVALID_ARGUMENT, saying what is wrong,
// for anything else.
kernel_ir::KernelBlob read_compiled_kernel(const void* blob, size_t size);

// The CUBIN `blob` holds for `compute_capability`; INVALID_ARGUMENT naming
// the architectures it has when it was compiled for others (such a CUBIN
// is never handed to the driver).
const std::string& cubin_for(const kernel_ir::KernelBlob& blob, int compute_capability);

}  // namespace ember::gpu::codegen
