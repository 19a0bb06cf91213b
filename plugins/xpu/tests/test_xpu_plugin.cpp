// The XPU plugin through the core: memory that is not host memory (views
// with offsets copied both ways), and every way a user can make it fail
// reported as an error, never an abort. Tests that need an OpenCL device
// skip without one; XpuWithoutDevice runs with EMBER_XPU_PLATFORM naming no
// platform, XpuBuildFailure with EMBER_XPU_BUILD_OPTIONS the compiler
// refuses (see CMakeLists.txt).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cstdlib>
#include <vector>

namespace ember {
namespace {

bool load_xpu() {
  static const PluginInfo info = load_plugin(EMBER_XPU_PLUGIN_PATH);
  return info.loaded;
}

// Named only once the plugin that defines the device type is loaded.
Device xpu() { return Device("xpu"); }

class Xpu : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(load_xpu());
    if (device_count("xpu") == 0) GTEST_SKIP() << "no OpenCL device";
  }
};

TEST_F(Xpu, ViewsWithOffsetsCopyBothWays) {
  const Tensor host = arange(0, 24, 1, TensorOptions(DType::Float32)).reshape({6, 4});
  const Tensor device = host.to(xpu());
  EXPECT_EQ(device.narrow(0, 2, 3).to(Device("cpu")).tolist<float>(), host.narrow(0, 2, 3).tolist<float>());
  EXPECT_EQ(device.t().to(Device("cpu")).tolist<float>(), host.t().tolist<float>());
  // Into a view with an offset, and device to device.
  Tensor target = zeros({6, 4}, TensorOptions(DType::Float32, xpu()));
  Tensor rows = target.narrow(0, 4, 2);
  rows.copy_(host.narrow(0, 0, 2));
  EXPECT_EQ(target.narrow(0, 4, 2).to(Device("cpu")).tolist<float>(), host.narrow(0, 0, 2).tolist<float>());
  EXPECT_EQ(device.narrow(0, 1, 2).clone().to(Device("cpu")).tolist<float>(), host.narrow(0, 1, 2).tolist<float>());
}

TEST_F(Xpu, IndexOutOfRangeIsAnError) {
  const Tensor x = ones({3}, TensorOptions(DType::Float32, xpu()));
  const Tensor index = tensor<int64_t>(std::vector<int64_t>{0, 7}).to(xpu());
  try {
    index_select(x, 0, index).to(Device("cpu"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Index) << e.what();
  }
}

TEST_F(Xpu, IntegerDivisionByZeroIsAnError) {
  const Tensor a = tensor<int64_t>(std::vector<int64_t>{5, 6}).to(xpu());
  const Tensor b = tensor<int64_t>(std::vector<int64_t>{1, 0}).to(xpu());
  try {
    floor_divide(a, b).to(Device("cpu"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("integer division by zero"), std::string::npos) << e.what();
  }
}

TEST_F(Xpu, OutOfMemoryIsAnError) {
  try {
    empty({int64_t{1} << 50}, TensorOptions(DType::Float32, xpu()));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory) << e.what();
  }
}

TEST_F(Xpu, HalfPrecisionIsReportedUnsupported) {
  const Tensor x = ones({2}, TensorOptions(DType::Float32, xpu())).to(DType::Float16);
  try {
    neg(x);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotImplemented) << e.what();
  }
}

TEST(XpuWithoutDevice, LoadsAndReportsNoDevice) {
  ASSERT_TRUE(load_xpu());
  EXPECT_EQ(device_count("xpu"), 0);
  try {
    ones({2}, TensorOptions(DType::Float32, xpu()));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("xpu"), std::string::npos) << e.what();
  }
}

TEST(XpuBuildFailure, ReportsTheCompilerError) {
  ASSERT_TRUE(load_xpu());
  if (device_count("xpu") == 0) GTEST_SKIP() << "no OpenCL device";
  try {
    neg(ones({2}, TensorOptions(DType::Float32, xpu()))).to(Device("cpu"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("building the float32 kernels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember
