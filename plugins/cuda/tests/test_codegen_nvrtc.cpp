// The CUDA C++ the code generator writes, compiled by NVRTC for sm_90 with
// the generator's own options (NVRTC needs no GPU): every op on every
// dtype, the reduction-shaped kernels fusion forms, float64 included.
#include <gtest/gtest.h>

#include <ember/sdk/status.hpp>

#include <string>
#include <vector>

#include "../codegen/cuda_dialect.h"
#include "../codegen/nvrtc_compiler.h"
#include "ekir_cases.h"

namespace ember::gpu::codegen {
namespace {

// Whether NVRTC compiles `source` for sm_90 as the generator does; its
// message and log otherwise.
std::string nvrtc_errors(const std::string& source, const std::string& name) {
  try {
    EXPECT_FALSE(compile_cubin(source, name, 90).image.empty()) << name;
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "";
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
