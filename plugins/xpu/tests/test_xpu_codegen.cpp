// The xpu plugin's OpenCL C generator through its C ABI, loaded by the
// conformance kit's harness: every op on every dtype the device serves
// builds, the integer, bool and reduced-float rules hold on the device,
// and blobs or launches it did not write or cannot run are refused.
#include <gtest/gtest.h>

#include <ember/ember_plugin.h>
#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/dtypes.hpp>

#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen_device_cases.h"
#include "codegen_harness.h"
#include "ekir_cases.h"

namespace ember::xpu::testing {
namespace {

using kernel_ir::testing::CodegenPlugin;
using kernel_ir::testing::Compiled;
using kernel_ir::testing::StatusCopy;

const CodegenPlugin& plugin() {
  static const CodegenPlugin plugin(EMBER_XPU_PLUGIN_PATH);
  return plugin;
}

Compiled compile(const std::string& ir) { return plugin().compile(ir); }

StatusCopy load(const std::string& blob, ember_codegen_kernel_t* kernel) { return plugin().load(blob, kernel); }

class XpuCodegen : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(plugin().codegen(), nullptr);
    if (plugin().device_count() == 0) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd for PoCL)";
  }
};

bool dtype_served(const std::string& name) {
  std::istringstream list(plugin().codegen()->dtypes);
  for (std::string d; list >> d;) {
    if (d == name) return true;
  }
  return false;
}

std::vector<ember_dtype> served_dtypes() {
  std::vector<ember_dtype> dtypes;
  for (int d = 0; d < EMBER_DTYPE_COUNT_V1_0; ++d) {
    if (dtype_served(sdk::dtype_name(static_cast<ember_dtype>(d)))) dtypes.push_back(static_cast<ember_dtype>(d));
  }
  return dtypes;
}

std::string every_op_kernel(ember_dtype dtype) { return kernel_ir::testing::every_op_kernel(dtype, served_dtypes()); }

TEST_F(XpuCodegen, EveryOpBuildsOnEveryServedDtype) {
  for (ember_dtype dtype : served_dtypes()) {
    const Compiled c = compile(every_op_kernel(dtype));
    EXPECT_TRUE(c.status.ok) << sdk::dtype_name(dtype) << ": " << c.status.message << "\n" << c.source;
  }
}

TEST_F(XpuCodegen, ReductionShapedKernelsRunAsEagerWould) {
  for (const auto& [name, ir] : kernel_ir::testing::reduction_kernels()) {
    const Compiled c = compile(ir);
    EXPECT_TRUE(c.status.ok) << name << ": " << c.status.message << "\n" << c.source;
  }
  kernel_ir::testing::expect_column_sums_exact(plugin(), kDLOpenCL);
}

TEST_F(XpuCodegen, IntegersWrapAndDivideAsTheCatalogueSays) {
  kernel_ir::testing::expect_integer_rules(plugin(), kDLOpenCL);
}

TEST_F(XpuCodegen, AnEmptyReductionYieldsItsIdentityAndADivisionByZeroFails) {
  kernel_ir::testing::expect_empty_reduction_identity_and_division_by_zero(plugin(), kDLOpenCL);
}

TEST_F(XpuCodegen, ConstantsThatAreLaunchParametersServeEveryValue) {
  kernel_ir::testing::expect_parameter_constants(plugin(), kDLOpenCL);
}

TEST_F(XpuCodegen, ReducedFloatsRoundToNearestEvenAtEveryInstruction) {
  kernel_ir::testing::expect_reduced_floats_round_at_every_instruction(plugin(), kDLOpenCL);
}

TEST_F(XpuCodegen, PointwiseKernelsRunAWorkItemPerPointAndReductionsAGroup) {
  const std::string pointwise = R"({"ekir":"1.0","name":"sin","params":0,
   "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],"outer":[8],
   "loops":[{"extents":[],"body":[
     {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
     {"id":1,"op":"sin","dtype":"float32","args":[0]},
     {"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})";
  const Compiled p = compile(pointwise);
  ASSERT_TRUE(p.status.ok) << p.status.message;
  EXPECT_NE(p.source.find("get_global_id(0)"), std::string::npos) << p.source;
  EXPECT_EQ(p.source.find("barrier("), std::string::npos) << p.source;
  const Compiled r = compile(kernel_ir::testing::kSoftmaxRows);
  ASSERT_TRUE(r.status.ok) << r.status.message;
  EXPECT_NE(r.source.find("get_group_id(0)"), std::string::npos);
  EXPECT_NE(r.source.find("barrier(CLK_LOCAL_MEM_FENCE)"), std::string::npos);
  EXPECT_NE(r.source.find("reqd_work_group_size(64, 1, 1)"), std::string::npos);
}

TEST_F(XpuCodegen, BlobsAndLaunchesItCannotRunAreRefused) {
  const Compiled c = compile(kernel_ir::testing::kCopyEight);
  ASSERT_TRUE(c.status.ok) << c.status.message;
  std::string flipped = c.blob;
  flipped[flipped.size() / 2] ^= 0x10;
  for (const std::string& bad : {std::string(), std::string(64, 'x'), c.blob.substr(0, c.blob.size() / 2), flipped}) {
    ember_codegen_kernel_t kernel = nullptr;
    const StatusCopy status = load(bad, &kernel);
    EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
    EXPECT_NE(status.message.find("not a kernel blob"), std::string::npos) << status.message;
  }
  kernel_ir::testing::expect_bad_launches_refused(plugin(), kDLOpenCL, "an xpu (OpenCL) device");
}

}  // namespace
}  // namespace ember::xpu::testing
