// The CUDA plugin's code generator. Without a GPU: its compile step end to
// end for sm_90 (EKIR in, a blob of CUBINs out) and back, blobs it did not
// write or built for another architecture refused with a status that says
// why, and through the plugin's C ABI (the conformance kit's harness) the
// codegen record, a fingerprint that is UNAVAILABLE with the reason, and
// refused loads. With a GPU: kernels run and match the catalogue's rules,
// faults raise as eager kernels raise them, and a CUBIN for another
// architecture is never launched.
#include <gtest/gtest.h>

#include <ember/kernel_ir/kernel_blob.h>
#include <ember/sdk/status.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "../codegen/compiled_kernel.h"
#include "codegen_device_cases.h"
#include "codegen_harness.h"
#include "ekir_cases.h"

namespace ember::gpu::codegen {
namespace {

using kernel_ir::testing::CodegenPlugin;
using kernel_ir::testing::Compiled;
using kernel_ir::testing::StatusCopy;
using kernel_ir::testing::take_status;

const char* kSin = R"({"ekir":"1.0","name":"sin","params":0,
 "buffers":[{"dtype":"float32","role":"input"},{"dtype":"float32","role":"output"}],"outer":[1000],
 "loops":[{"extents":[],"body":[
   {"id":0,"op":"load","dtype":"float32","buffer":0,"offset":0,"strides":[1]},
   {"id":1,"op":"sin","dtype":"float32","args":[0]},
   {"id":2,"op":"store","buffer":1,"offset":0,"strides":[1],"args":[1]}]}]})";

// Whatever `body` throws as sdk::Error, as a status.
template <class Body>
StatusCopy status_of(Body body) {
  try {
    body();
  } catch (const sdk::Error& e) {
    return {false, e.code(), e.what()};
  }
  return {};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CudaCodegenCompile, EkirBecomesABlobOfOneCubinPerArchitecture) {
  const sdk::CompiledKernel compiled = compile_kernel(kernel_ir::testing::kSoftmaxRows, {80, 90});
  EXPECT_TRUE(has(compiled.source, "ek_kernel")) << compiled.source;
  const kernel_ir::KernelBlob blob = read_compiled_kernel(compiled.blob.data(), compiled.blob.size());
  EXPECT_EQ(blob.ir, kernel_ir::testing::kSoftmaxRows);
  ASSERT_EQ(blob.binaries.size(), 2u);
  for (int architecture : {80, 90}) {
    const std::string& cubin = cubin_for(blob, architecture);
    EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF") << architecture;  // a CUBIN is an ELF image
  }
}

TEST(CudaCodegenCompile, ABlobForOtherArchitecturesIsRefused) {
  const sdk::CompiledKernel compiled = compile_kernel(kSin, {90});
  const kernel_ir::KernelBlob blob = read_compiled_kernel(compiled.blob.data(), compiled.blob.size());
  const StatusCopy status = status_of([&] { cubin_for(blob, 100); });
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(has(status.message, "the kernel blob holds CUBINs for sm_90, not sm_100")) << status.message;
}

TEST(CudaCodegenCompile, ForeignTruncatedAndDamagedBlobsAreRefused) {
  const std::string blob = compile_kernel(kSin, {90}).blob;
  std::string flipped = blob;
  flipped[flipped.size() / 2] ^= 0x10;
  // The xpu generator's blob: the same layout under another magic.
  const std::string foreign = kernel_ir::write_kernel_blob({"xpu codegen", "EMBXPUCG", 1}, {kSin, {{"sm_90", "x"}}});
  for (const std::string& bad : {std::string(), std::string(64, 'x'), blob.substr(0, blob.size() / 2),
                                 blob.substr(0, 12), flipped, foreign}) {
    const StatusCopy status = status_of([&] { read_compiled_kernel(bad.data(), bad.size()); });
    EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
    EXPECT_TRUE(has(status.message, "cuda codegen: not a kernel blob of this plugin")) << status.message;
  }
}

TEST(CudaCodegenCompile, SourceNvrtcRefusesIsUnimplementedWithItsLog) {
  setenv("EMBER_CUDA_CODEGEN_OPTIONS", "--no-such-option", 1);
  const StatusCopy status = status_of([] { compile_kernel(kSin, {90}); });
  unsetenv("EMBER_CUDA_CODEGEN_OPTIONS");
  EXPECT_EQ(status.code, EMBER_STATUS_UNIMPLEMENTED) << status.message;
  EXPECT_TRUE(has(status.message, "cannot compile kernel 'sin'")) << status.message;
  EXPECT_TRUE(has(status.message, "--no-such-option")) << status.message;
}

TEST(CudaCodegenCompile, InvalidEkirIsAnInvalidArgument) {
  const StatusCopy status = status_of([] { compile_kernel(R"({"ekir":"9.0"})", {90}); });
  EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
}

const CodegenPlugin& plugin() {
  static const CodegenPlugin plugin(EMBER_CUDA_PLUGIN_PATH);
  return plugin;
}

// An architecture NVRTC compiles for that no device of this machine has.
int absent_architecture() {
  const std::string fingerprint = [] {
    kernel_ir::testing::Sink sink;
    take_status(plugin().codegen()->fingerprint(&sink.output));
    return sink.artifacts[EMBER_CODEGEN_TEXT];
  }();
  return has(fingerprint, " sm_80") ? 90 : 80;
}

TEST(CudaCodegenPlugin, CarriesACodegenRecordForCudaTensors) {
  const ember_codegen_extension* codegen = plugin().codegen();
  ASSERT_NE(codegen, nullptr);
  EXPECT_STREQ(codegen->device_type, "cuda");
  EXPECT_STREQ(codegen->ir_versions, "1.0 1.1 1.2");
  EXPECT_TRUE(has(codegen->dtypes, "float64") && has(codegen->dtypes, "bfloat16")) << codegen->dtypes;
  EXPECT_TRUE(has(codegen->ops, "sin") && has(codegen->ops, "reduce")) << codegen->ops;
}

TEST(CudaCodegenPlugin, FingerprintNamesNvrtcTheDriverAndEachDeviceOrIsUnavailableWithTheReason) {
  kernel_ir::testing::Sink sink;
  const StatusCopy status = take_status(plugin().codegen()->fingerprint(&sink.output));
  const std::string& text = sink.artifacts[EMBER_CODEGEN_TEXT];
  if (plugin().device_count() == 0) {
    EXPECT_EQ(status.code, EMBER_STATUS_UNAVAILABLE) << status.message;
    EXPECT_TRUE(has(status.message, "cuda codegen: no CUDA device (")) << status.message;
    const Compiled c = plugin().compile(kSin);
    EXPECT_EQ(c.status.code, EMBER_STATUS_UNAVAILABLE) << c.status.message;
  } else {
    ASSERT_TRUE(status.ok) << status.message;
    for (const char* part : {"nvrtc ", " driver ", "--fmad=false", "device 0: ", " sm_"}) {
      EXPECT_TRUE(has(text, part)) << part << " is not in " << text;
    }
  }
}

TEST(CudaCodegenPlugin, LoadRefusesBlobsItDidNotWriteOrCannotRun) {
  const std::string blob = compile_kernel(kSin, {90}).blob;
  for (const std::string& bad : {std::string(), std::string(64, 'x'), blob.substr(0, blob.size() - 1)}) {
    ember_codegen_kernel_t kernel = nullptr;
    const StatusCopy status = plugin().load(bad, &kernel);
    EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
    EXPECT_TRUE(has(status.message, "not a kernel blob of this plugin")) << status.message;
    EXPECT_EQ(kernel, nullptr);
  }
  ember_codegen_kernel_t kernel = nullptr;
  if (plugin().device_count() == 0) {
    const StatusCopy status = plugin().load(blob, &kernel);
    EXPECT_EQ(status.code, EMBER_STATUS_UNAVAILABLE) << status.message;
  } else {
    const std::string other = compile_kernel(kSin, {absent_architecture()}).blob;
    const StatusCopy status = plugin().load(other, &kernel);
    EXPECT_EQ(status.code, EMBER_STATUS_INVALID_ARGUMENT) << status.message;
    EXPECT_TRUE(has(status.message, "the kernel blob holds CUBINs for")) << status.message;
  }
  EXPECT_EQ(kernel, nullptr);
}

class CudaCodegenOnDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(plugin().codegen(), nullptr);
    if (plugin().device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine (the generator compiled)";
  }
};

TEST_F(CudaCodegenOnDevice, PointwiseKernelsMatchTheHostOnTheirStream) {
  using kernel_ir::testing::DeviceBuffer;
  DeviceBuffer in(plugin(), kDLCUDA, EMBER_DTYPE_FLOAT32, 1000), out(plugin(), kDLCUDA, EMBER_DTYPE_FLOAT32, 1000);
  std::vector<float> values(1000);
  for (int i = 0; i < 1000; ++i) values[i] = static_cast<float>(i) * 0.01f - 5.0f;
  in.write(values);
  ember_stream_t stream = nullptr;
  ASSERT_TRUE(take_status(plugin().device().stream_create(0, &stream)).ok);
  const StatusCopy status = plugin().run(kSin, {&in.tensor(), &out.tensor()}, {}, stream);
  ASSERT_TRUE(status.ok) << status.message;
  EXPECT_TRUE(take_status(plugin().device().stream_synchronize(0, stream)).ok);
  EXPECT_TRUE(take_status(plugin().device().stream_destroy(0, stream)).ok);
  const std::vector<float> got = out.read<float>();
  for (int i = 0; i < 1000; ++i) EXPECT_NEAR(got[i], std::sin(values[i]), 1e-6f) << values[i];
}

TEST_F(CudaCodegenOnDevice, ReductionsRunABlockPerPointAndIntegersFollowTheCatalogue) {
  kernel_ir::testing::expect_column_sums_exact(plugin(), kDLCUDA);
  kernel_ir::testing::expect_integer_rules(plugin(), kDLCUDA);
  kernel_ir::testing::expect_empty_reduction_identity_and_division_by_zero(plugin(), kDLCUDA);
  kernel_ir::testing::expect_parameter_constants(plugin(), kDLCUDA);
}

TEST_F(CudaCodegenOnDevice, ReducedFloatsRoundToNearestEvenAtEveryInstruction) {
  kernel_ir::testing::expect_reduced_floats_round_at_every_instruction(plugin(), kDLCUDA);
}

TEST_F(CudaCodegenOnDevice, LaunchesOutsideTheBuffersOrOffTheDeviceAreRefused) {
  kernel_ir::testing::expect_bad_launches_refused(plugin(), kDLCUDA, "a cuda device");
}

}  // namespace
}  // namespace ember::gpu::codegen
