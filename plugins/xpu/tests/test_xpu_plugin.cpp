// The XPU plugin through the core: memory that is not host memory (views
// with offsets copied both ways), float16 and bfloat16 rounded as ops.md
// says, and every way a user can make it fail reported as an error, never
// an abort. Tests that need an OpenCL device skip without one;
// XpuWithoutDevice runs with EMBER_XPU_PLATFORM naming no platform,
// XpuBuildFailure with EMBER_XPU_BUILD_OPTIONS the compiler refuses (see
// CMakeLists.txt).
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/profiler.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>
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

// float16 and bfloat16 (Note [XPU dtypes] in dtypes.h): kernels compute in
// float32 and round to nearest even on store. Values are checked as bits,
// which is what rounding decides.

Tensor floats_from_bits(const std::vector<uint32_t>& bits) {
  std::vector<float> values;
  for (uint32_t b : bits) values.push_back(std::bit_cast<float>(b));
  return tensor<float>(values);
}

// A host tensor of a 16-bit dtype holding exactly `bits`.
Tensor halves_from_bits(const std::vector<uint16_t>& bits, DType dtype) {
  Tensor t = empty({static_cast<int64_t>(bits.size())}, TensorOptions(dtype));
  std::memcpy(t.data_ptr(), bits.data(), bits.size() * sizeof(uint16_t));
  return t;
}

std::vector<uint16_t> bits_of(const Tensor& t) {
  const Tensor host = t.to(Device("cpu")).contiguous();
  const uint16_t* data = host.data<uint16_t>();
  return std::vector<uint16_t>(data, data + host.numel());
}

bool is_float16_nan(uint16_t bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x03ffu) != 0; }
bool is_quiet_bfloat16_nan(uint16_t bits) { return (bits & 0x7f80u) == 0x7f80u && (bits & 0x0040u) != 0; }

TEST_F(Xpu, Float32ToFloat16RoundsToNearestEven) {
  const Tensor x = floats_from_bits({
      0x3f801000,  // 1 + 2^-11, halfway between 1 and 1 + 2^-10: to even, 1
      0x3f803000,  // 1 + 3 * 2^-11, halfway: to even, 1 + 2^-9
      0x3f801008,  // just above halfway: up
      0x477fe000,  // 65504, the largest float16
      0x477fefff,  // just below halfway to 65536: 65504
      0x477ff000,  // halfway to 65536, which float16 cannot hold: infinity
      0x7f800000,  // infinity
      0xff800000,  // -infinity
      0x33800000,  // 2^-24, the smallest subnormal float16
      0x33000000,  // 2^-25, halfway between 0 and 2^-24: to even, 0
      0x33c00000,  // 3 * 2^-25, halfway: to even, 2^-23
      0xb3800000,  // -2^-24
      0x387fc000,  // 2^-14 - 2^-24, the largest subnormal float16
      0x7fc00000,  // NaN
  });
  const std::vector<uint16_t> bits = bits_of(x.to(xpu()).to(DType::Float16));
  const std::vector<uint16_t> expected = {0x3c00, 0x3c02, 0x3c01, 0x7bff, 0x7bff, 0x7c00, 0x7c00,
                                          0xfc00, 0x0001, 0x0000, 0x0002, 0x8001, 0x03ff};
  ASSERT_EQ(bits.size(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(bits[i], expected[i]) << "element " << i;
  EXPECT_TRUE(is_float16_nan(bits.back())) << std::hex << bits.back();
}

TEST_F(Xpu, Float32ToBFloat16RoundsToNearestEvenAndKeepsNaNQuiet) {
  const Tensor x = floats_from_bits({
      0x3f808000,  // 1 + 2^-8, halfway between 1 and 1 + 2^-7: to even, 1
      0x3f818000,  // 1 + 3 * 2^-8, halfway: to even, 1 + 2^-6
      0x3f808001,  // just above halfway: up
      0x7f7fffff,  // the largest float32 rounds past the largest bfloat16: infinity
      0x80000000,  // -0
      0xff800000,  // -infinity
      0x7f800001,  // a signalling NaN, which rounding alone would turn into infinity
      0xffc00000,  // a quiet NaN
  });
  const std::vector<uint16_t> bits = bits_of(x.to(xpu()).to(DType::BFloat16));
  const std::vector<uint16_t> expected = {0x3f80, 0x3f82, 0x3f81, 0x7f80, 0x8000, 0xff80};
  ASSERT_EQ(bits.size(), expected.size() + 2);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(bits[i], expected[i]) << "element " << i;
  EXPECT_TRUE(is_quiet_bfloat16_nan(bits[6])) << std::hex << bits[6];
  EXPECT_TRUE(is_quiet_bfloat16_nan(bits[7])) << std::hex << bits[7];
}

TEST_F(Xpu, ConversionsFromFloat16AndBFloat16) {
  // float16: 2^-24, 1 + 3 * 2^-10, 1 + 2^-8, 1 + 6 * 2^-10, -2.75, 65504, -inf, NaN.
  const Tensor half =
      halves_from_bits({0x0001, 0x3c03, 0x3c04, 0x3c06, 0xc180, 0x7bff, 0xfc00, 0x7e00}, DType::Float16).to(xpu());
  EXPECT_EQ(half.to(DType::Float32).to(Device("cpu")).tolist<double>().front(), std::ldexp(1.0, -24));
  // To bfloat16's 8 significant bits, to nearest even: 2^-24 is exact,
  // 1 + 3 * 2^-10 rounds down to 1, 1 + 2^-8 (halfway) to even 1,
  // 1 + 6 * 2^-10 up, 65504 up to 65536.
  const std::vector<uint16_t> bf16 = bits_of(half.to(DType::BFloat16));
  EXPECT_EQ(std::vector<uint16_t>(bf16.begin(), bf16.end() - 1),
            (std::vector<uint16_t>{0x3380, 0x3f80, 0x3f80, 0x3f81, 0xc030, 0x4780, 0xff80}));
  EXPECT_TRUE(is_quiet_bfloat16_nan(bf16.back()));
  // Float to integer truncates toward zero; to bool is x != 0, NaN included.
  const Tensor finite = half.narrow(0, 0, 6);
  EXPECT_EQ(finite.to(DType::Int32).to(Device("cpu")).tolist<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1, -2, 65504}));
  EXPECT_EQ(half.to(DType::Bool).to(Device("cpu")).tolist<int64_t>(), (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 1}));
  // bfloat16 1 + 2^-7 and 2^-20 are float16 values; 2^-30 is less than half
  // float16's smallest subnormal (so 0) and 3 * 2^15 more than its largest.
  const Tensor bfloat = halves_from_bits({0x3f81, 0x3580, 0x3080, 0x47c0}, DType::BFloat16).to(xpu());
  EXPECT_EQ(bits_of(bfloat.to(DType::Float16)), (std::vector<uint16_t>{0x3c08, 0x0010, 0x0000, 0x7c00}));
}

TEST_F(Xpu, ConversionsToFloat16AndBFloat16) {
  // int32 2049 lies halfway between the float16 values 2048 and 2050 (to
  // even: 2048), 2051 between 2050 and 2052 (2052); 70000 overflows.
  const Tensor ints = tensor<int32_t>(std::vector<int32_t>{2049, 2051, -3, 70000}).to(xpu());
  EXPECT_EQ(bits_of(ints.to(DType::Float16)), (std::vector<uint16_t>{0x6800, 0x6802, 0xc200, 0x7c00}));
  // bfloat16 spaces its values 16 apart above 2048: both round to 2048.
  EXPECT_EQ(bits_of(ints.narrow(0, 0, 3).to(DType::BFloat16)), (std::vector<uint16_t>{0x4500, 0x4500, 0xc040}));
  const Tensor flags = tensor<bool>(std::vector<bool>{true, false}).to(xpu());
  EXPECT_EQ(bits_of(flags.to(DType::Float16)), (std::vector<uint16_t>{0x3c00, 0x0000}));
  EXPECT_EQ(bits_of(flags.to(DType::BFloat16)), (std::vector<uint16_t>{0x3f80, 0x0000}));
}

// Each result is computed in float32 and rounded once: float16 spaces its
// values 2 apart above 2048, bfloat16 above 256, so adding 1 to 2048 rounds
// back to 2048, and only a float32 accumulator lets four ones add up to 4.
TEST_F(Xpu, ReducedFloatsComputeInFloat32AndRoundOnce) {
  for (const auto& [dtype, big] : {std::pair{DType::Float16, 2048.0f}, std::pair{DType::BFloat16, 256.0f}}) {
    SCOPED_TRACE(dtype_name(dtype));
    const auto values = [&](const Tensor& t) { return t.to(Device("cpu")).tolist<double>(); };
    const Tensor x = tensor<float>(std::vector<float>{big, 1, 1, 1, 1}).to(xpu()).to(dtype);
    const Tensor one = ones({1}, TensorOptions(dtype, xpu()));
    const Tensor three = full_like(one, 3);
    EXPECT_EQ(values(add(x.narrow(0, 0, 1), one)), std::vector<double>{big});
    EXPECT_EQ(values(add(x.narrow(0, 0, 1), three)), std::vector<double>{big + 4});
    EXPECT_EQ(values(sum(x)), std::vector<double>{big + 4});
    EXPECT_EQ(values(cumsum(x, 0)), (std::vector<double>{big, big, big + 2, big + 4, big + 4}));
    // x as a row times a transposed row of ones accumulates in float32 too.
    const Tensor ones_row = ones({1, 5}, TensorOptions(dtype, xpu()));
    EXPECT_EQ(values(mm(x.reshape({1, 5}), ones_row.t())), std::vector<double>{big + 4});
    EXPECT_EQ(values(bmm(x.reshape({1, 1, 5}), ones_row.reshape({1, 1, 5}).transpose(1, 2))),
              std::vector<double>{big + 4});
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

// Device time (ABI 1.5): each OpenCL command of a profiled op carries a
// profiling event, read at stop() and moved onto the host's clock.
TEST_F(Xpu, ProfiledOpsGetTheDeviceTimesOfTheirKernels) {
  const Tensor a = ones({64, 64}, TensorOptions(DType::Float32, xpu()));
  (void)(a + a).to(Device("cpu"));  // programs built before the session
  (void)matmul(a, a).to(Device("cpu"));
  profiler::start({});
  const Tensor sum_ = a + a;
  const Tensor product = matmul(a, a);
  (void)product.to(Device("cpu"));
  const auto events = profiler::stop();
  std::vector<const profiler::ProfilerEvent*> kernels;
  for (const auto& e : events) {
    if (e.kind == profiler::EventKind::Device) kernels.push_back(&e);
  }
  ASSERT_GE(kernels.size(), 2u);
  bool saw_add = false;
  bool saw_gemm = false;
  for (const auto* k : kernels) {
    const profiler::ProfilerEvent& op = events[static_cast<size_t>(k->parent_id)];
    EXPECT_EQ(k->device_type, xpu().type);
    EXPECT_LE(k->start_ns, k->end_ns);
    // The clocks meet at start() within the wake-up of clFinish, so a
    // kernel cannot be seen to start well before the op queued it.
    EXPECT_GE(k->start_ns, op.start_ns - 1'000'000) << k->name;
    saw_add |= op.name == "add";
    saw_gemm |= op.name == "mm" && k->name == "clblast_gemm_strided_batched";
  }
  EXPECT_TRUE(saw_add);
  EXPECT_TRUE(saw_gemm);
}

}  // namespace
}  // namespace ember
