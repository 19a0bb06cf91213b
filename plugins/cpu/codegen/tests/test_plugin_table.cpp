// What the plugin tells the core about itself: no device, no kernels, one
// codegen extension for "cpu" with its capabilities, and a fingerprint.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "codegen_harness.h"

namespace ember::cpu_codegen::testing {
namespace {

std::set<std::string> words(const char* list) {
  std::istringstream in(list);
  std::set<std::string> set;
  for (std::string word; in >> word;) set.insert(word);
  return set;
}

TEST(CpuCodegenPlugin, IsAGeneratorWithoutADevice) {
  const ember_plugin& plugin = Codegen::get().plugin();
  EXPECT_STREQ(plugin.name, "cpu_codegen");
  EXPECT_EQ(plugin.abi_minor, static_cast<uint32_t>(EMBER_ABI_VERSION_MINOR));
  EXPECT_EQ(plugin.device, nullptr);
  EXPECT_EQ(plugin.register_kernels, nullptr);
  const ember_codegen_extension& ext = Codegen::get().extension();
  EXPECT_EQ(ext.header.struct_size, sizeof(ember_codegen_extension));
  EXPECT_EQ(ext.header.next, nullptr);
  EXPECT_STREQ(ext.device_type, "cpu");
  EXPECT_STREQ(ext.ir_versions, "1.0 1.1 1.2");
  EXPECT_EQ(ext.thread_safety, EMBER_CODEGEN_COMPILE_THREAD_SAFE | EMBER_CODEGEN_LAUNCH_THREAD_SAFE);
}

// Every body op and dtype of kernel-ir.md.
TEST(CpuCodegenPlugin, CompilesEveryOpAndDtypeOfEkir1_0) {
  const ember_codegen_extension& ext = Codegen::get().extension();
  EXPECT_EQ(words(ext.ops),
            words("load store const cast where reduce neg abs sign exp log log1p expm1 sqrt rsqrt sin cos tan tanh "
                  "sigmoid erf erfc asin acos atan reciprocal floor ceil round trunc bitwise_not logical_not add sub mul div floor_divide "
                  "remainder pow atan2 maximum minimum bitwise_and bitwise_or bitwise_xor logical_and logical_or "
                  "logical_xor eq ne lt le gt ge"));
  EXPECT_EQ(words(ext.dtypes), words("bool uint8 int8 int16 int32 int64 float16 bfloat16 float32 float64"));
}

TEST(CpuCodegenPlugin, FingerprintNamesCompilerFlagsAndIsa) {
  std::string text;
  const StatusCopy status = Codegen::get().fingerprint(&text);
  ASSERT_TRUE(status.ok) << status.message;
  for (const char* part : {"generator: cpu_codegen ", "compiler: /", "version: ", "-march=native", "-ffp-contract=off",
                           "isa: ", "simd: "}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << " not in:\n" << text;
  }
  EXPECT_EQ(text.find("-ffast-math"), std::string::npos) << text;
  std::string again;
  ASSERT_TRUE(Codegen::get().fingerprint(&again).ok);
  EXPECT_EQ(text, again);
}

}  // namespace
}  // namespace ember::cpu_codegen::testing
