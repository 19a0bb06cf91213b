// Code generators across ABI minors: the 1.2 record is read from a 1.2
// plugin, ignored in a 1.1 plugin, and a malformed or second record
// quarantines its plugin with the reason.
#include <gtest/gtest.h>

#include <string>

#include <ember/ember.h>

#include "compile/disk_cache.h"
#include "compile/kernel_compiler.h"
#include "plugin/codegen_provider.h"
#include "plugin_paths.h"

namespace ember {
namespace {

TEST(CodegenAbi, AV1_2GeneratorIsRegisteredForItsDeviceType) {
  const PluginInfo info = load_plugin(test_plugin_path("codegen_v1_2"));
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.codegen_device_type, "fakegen");
  EXPECT_TRUE(info.device_type.empty());
  const plugin::CodegenProvider* provider = plugin::codegen_for("fakegen");
  ASSERT_NE(provider, nullptr);
  EXPECT_EQ(provider->plugin_name(), "codegen_v1_2");
  EXPECT_EQ(provider->fingerprint(), "fake generator 1");
  EXPECT_TRUE(provider->supports_op("sin"));
  EXPECT_FALSE(provider->supports_op("cos"));
  const auto compiled = provider->compile("{\"ekir\":\"1.0\"}", "{}");
  EXPECT_EQ(compiled.binary, "fake-binary:{\"ekir\":\"1.0\"}");
  EXPECT_NE(provider->load(compiled.binary), nullptr);
}

TEST(CodegenAbi, AV1_1PluginCarryingTheRecordLoadsWithoutCodegen) {
  const PluginInfo info = load_plugin(test_plugin_path("codegen_v1_1"));
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.negotiated_minor, 1u);
  EXPECT_TRUE(info.codegen_device_type.empty());
  EXPECT_EQ(plugin::codegen_for("fakegen_old"), nullptr);
}

TEST(CodegenAbi, ANullFunctionQuarantinesThePlugin) {
  const std::string error = load_error(test_plugin_path("codegen_broken"));
  EXPECT_NE(error.find("leaves a required function NULL"), std::string::npos) << error;
  EXPECT_EQ(plugin::codegen_for("fakegen_broken"), nullptr);
}

TEST(CodegenAbi, ASecondGeneratorForADeviceTypeNamesTheFirst) {
  load_plugin(test_plugin_path("codegen_v1_2"));
  const std::string error = load_error(test_plugin_path("codegen_twin"));
  EXPECT_NE(error.find("already has a code generator, plugin 'codegen_v1_2'"), std::string::npos) << error;
}

TEST(CodegenAbi, TheCacheKeyCarriesTheGeneratorsIdentity) {
  load_plugin(test_plugin_path("codegen_v1_2"));
  const plugin::CodegenProvider* provider = plugin::codegen_for("fakegen");
  ASSERT_NE(provider, nullptr);
  const compile::KernelCacheKey key = compile::cache_key_for(*provider, "{}", false);
  EXPECT_EQ(key.plugin_name, "codegen_v1_2");
  EXPECT_EQ(key.plugin_version, "0.1");
  EXPECT_EQ(key.abi_minor, 2u);
  EXPECT_EQ(key.fingerprint, "fake generator 1");
  EXPECT_NE(compile::cache_key_for(*provider, "{}", true).digest(), key.digest());
}

}  // namespace
}  // namespace ember
