#include "compiled_kernel.h"

#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/status.hpp>

#include <algorithm>

#include "cuda_dialect.h"
#include "nvrtc_compiler.h"

namespace ember::gpu::codegen {
namespace {

// Each binary's target is its architecture's name ("sm_90"). Version 1:
// ek_kernel takes each buffer's pointer and element offset, the int64
// parameters, then the fault word where the kernel can fault.
const kernel_ir::BlobFormat kBlobFormat{"cuda codegen", "EMBCUDCG", 1};

}  // namespace

sdk::CompiledKernel compile_kernel(std::string_view ir, const std::vector<int>& architectures) {
  const kernel_ir::Kernel kernel = kernel_ir::parse_ekir(ir);
  const kernel_ir::GroupKernel source = generate_cuda_source(kernel);
  sdk::CompiledKernel compiled;
  compiled.source = source.text;
  kernel_ir::KernelBlob contents;
  contents.ir = std::string(ir);
  for (int architecture : architectures) {
    Cubin cubin = compile_cubin(source.text, kernel.name, architecture);
    if (!cubin.log.empty()) compiled.log += architecture_name(architecture) + ":\n" + cubin.log + "\n";
    contents.binaries.push_back({architecture_name(architecture), std::move(cubin.image)});
  }
  compiled.blob = kernel_ir::write_kernel_blob(kBlobFormat, contents);
  return compiled;
}

kernel_ir::KernelBlob read_compiled_kernel(const void* blob, size_t size) {
  return kernel_ir::read_kernel_blob(kBlobFormat, blob, size);
}

const std::string& cubin_for(const kernel_ir::KernelBlob& blob, int compute_capability) {
  const std::string wanted = architecture_name(compute_capability);
  const auto found = std::find_if(blob.binaries.begin(), blob.binaries.end(),
                                  [&](const kernel_ir::BlobBinary& b) { return b.target == wanted; });
  if (found != blob.binaries.end()) return found->binary;
  std::string held;
  for (const kernel_ir::BlobBinary& b : blob.binaries) held += (held.empty() ? "" : ", ") + b.target;
  sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cuda codegen: the kernel blob holds CUBINs for " +
                                               (held.empty() ? std::string("no architecture") : held) + ", not " +
                                               wanted);
}

}  // namespace ember::gpu::codegen
