// A plugin kernel's error reaches the caller intact through the dispatcher.
#include <gtest/gtest.h>

#include <string>

#include "ember/error.h"
#include "ember/ops.h"
#include "ember/plugins.h"
#include "plugin/device_registry.h"
#include "plugin_paths.h"

namespace ember {
namespace {

TEST(KernelErrors, PluginMessageArrivesIntact) {
  load_plugin(test_plugin_path("failing_kernel"));
  Device failing(plugin::DeviceRegistry::get().find_type("failing"), 0);
  Tensor x = empty({4}, TensorOptions(DType::Float32, failing));
  try {
    neg(x);
    FAIL() << "the failing kernel succeeded";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("kernel exploded"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace ember
