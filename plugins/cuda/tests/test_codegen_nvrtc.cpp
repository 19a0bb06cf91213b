// The CUDA C++ the code generator writes, compiled by NVRTC for sm_90
// (NVRTC needs no GPU): every op on every dtype, the reduction-shaped
// kernels fusion forms, float64 included.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <string>
#include <vector>

#include "../codegen/cuda_dialect.h"
#include "ekir_cases.h"

namespace ember::gpu::codegen {
namespace {

// Whether NVRTC compiles `source` for sm_90 with the generator's options;
// the log otherwise.
std::string nvrtc_errors(const std::string& source, const std::string& name) {
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    return "nvrtcCreateProgram failed";
  }
  const char* options[] = {"--gpu-architecture=sm_90", "--fmad=false", "--std=c++17"};
  const nvrtcResult result = nvrtcCompileProgram(program, 3, options);
  std::string log;
  size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  log.resize(size);
  if (size > 0) nvrtcGetProgramLog(program, log.data());
  nvrtcDestroyProgram(&program);
  return result == NVRTC_SUCCESS ? "" : std::string(nvrtcGetErrorString(result)) + ":\n" + log;
}

std::vector<ember_dtype> all_dtypes() {
  std::vector<ember_dtype> dtypes;
  for (int d = 0; d < EMBER_DTYPE_COUNT_V1_0; ++d) dtypes.push_back(static_cast<ember_dtype>(d));
  return dtypes;
}

TEST(CudaCodegenNvrtc, EveryOpOnEveryDtypeCompilesForSm90) {
  for (ember_dtype dtype : all_dtypes()) {
    const kernel_ir::Kernel kernel = kernel_ir::parse_ekir(kernel_ir::testing::every_op_kernel(dtype, all_dtypes()));
    const kernel_ir::GroupKernel source = generate_cuda_source(kernel);
    EXPECT_EQ(nvrtc_errors(source.text, kernel.name), "") << source.text;
  }
}

TEST(CudaCodegenNvrtc, ReductionShapedKernelsCompileForSm90) {
  for (const auto& [name, ir] : kernel_ir::testing::reduction_kernels()) {
    const kernel_ir::GroupKernel source = generate_cuda_source(kernel_ir::parse_ekir(ir));
    EXPECT_TRUE(source.group_per_point) << name;
    EXPECT_NE(source.text.find("__syncthreads();"), std::string::npos) << name;
    EXPECT_EQ(nvrtc_errors(source.text, name), "") << name << "\n" << source.text;
  }
}

}  // namespace
}  // namespace ember::gpu::codegen
