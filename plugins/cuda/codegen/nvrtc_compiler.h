// NVRTC, which compiles the generated CUDA C++: one source to a CUBIN for
// one architecture. It needs neither a GPU nor the driver, so kernels are
// compiled (and tested) for sm_90 on machines without either.
#pragma once

#include <string>
#include <vector>

namespace ember::gpu::codegen {

// A compute capability as major * 10 + minor (90 for 9.0), named as NVRTC
// names its architecture ("sm_90").
std::string architecture_name(int compute_capability);

// NVRTC's version, "13.0".
std::string nvrtc_version();

// What every kernel is compiled with besides the architecture: C++17 and
// --fmad=false, so that a * b + c rounds as eager kernels round it
// (sdk/docs/kernel-ir.md), then what EMBER_CUDA_CODEGEN_OPTIONS adds
// (space-separated).
std::vector<std::string> nvrtc_options();

struct Cubin {
  std::string image;
  std::string log;  // NVRTC's messages, warnings included
};

// UNIMPLEMENTED naming kernel `name`, the architecture and the options,
// with NVRTC's log, when NVRTC refuses the source.
Cubin compile_cubin(const std::string& source, const std::string& name, int compute_capability);

}  // namespace ember::gpu::codegen
