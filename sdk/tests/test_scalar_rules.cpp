// The catalogue's scalar rules (ember/sdk/scalar_rules.hpp) on values whose
// Python results are known, and the loop geometry against row-major
// addresses.
#include <gtest/gtest.h>

#include <ember/ember_plugin.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ember::sdk {
namespace {

TEST(ScalarRules, ComputeTypes) {
  static_assert(std::is_same_v<Compute<float16>, float>);
  static_assert(std::is_same_v<Compute<bfloat16>, float>);
  static_assert(std::is_same_v<Compute<int8_t>, int8_t>);
  static_assert(is_integer_v<uint8_t> && !is_integer_v<bool> && is_floating_v<float16>);
  EXPECT_EQ(convert<int32_t>(-2.9f), -2);  // toward zero
  EXPECT_TRUE(convert<bool>(std::numeric_limits<float>::quiet_NaN()));
  EXPECT_FALSE(convert<bool>(-0.0));
  EXPECT_EQ(convert<uint8_t>(int64_t{300}), uint8_t{44});
  EXPECT_EQ(static_cast<float>(convert<bfloat16>(1.00390625f)), 1.0f);  // ties to even
  EXPECT_EQ(to_compute(float16(0.5f)), 0.5f);
}

TEST(ScalarRules, IntegerArithmeticWraps) {
  EXPECT_EQ(wrap_add<int8_t>(127, 1), -128);
  EXPECT_EQ(wrap_sub<int32_t>(std::numeric_limits<int32_t>::min(), 1), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(wrap_mul<uint16_t>(65535, 65535), uint16_t{1});  // no int promotion overflow
  EXPECT_EQ(wrap_mul<int64_t>(INT64_C(1) << 62, 4), 0);
  EXPECT_EQ(wrap_neg<int64_t>(std::numeric_limits<int64_t>::min()), std::numeric_limits<int64_t>::min());
}

TEST(ScalarRules, FloorDivideAndRemainderFollowPython) {
  EXPECT_EQ(floor_divide<int32_t>(-7, 2), -4);
  EXPECT_EQ(floor_divide<int32_t>(7, -2), -4);
  EXPECT_EQ(floor_divide<int32_t>(-8, 2), -4);
  EXPECT_EQ(floor_divide<int8_t>(-128, -1), -128);  // wraps
  EXPECT_EQ(floor_divide<uint8_t>(255, 2), 127);
  EXPECT_EQ(remainder<int32_t>(-7, 2), 1);
  EXPECT_EQ(remainder<int32_t>(7, -2), -1);
  EXPECT_EQ(remainder<int8_t>(-128, -1), 0);
  EXPECT_EQ(floor_divide(1.0, 0.1), 9.0);  // CPython: 1.0 // 0.1 == 9.0
  EXPECT_NEAR(remainder(1.0, 0.1), 0.09999999999999995, 1e-17);
  EXPECT_EQ(remainder(-1.0f, 3.0f), 2.0f);
  EXPECT_EQ(floor_divide(-1.0f, 3.0f), -1.0f);
  EXPECT_TRUE(std::signbit(floor_divide(-0.5, 2.0)));  // -0.0, as Python
  EXPECT_TRUE(std::isinf(floor_divide(1.0, 0.0)));
}

TEST(ScalarRules, IntegerPow) {
  EXPECT_EQ(integer_pow<int32_t>(3, 4), 81);
  EXPECT_EQ(integer_pow<int32_t>(2, 31), std::numeric_limits<int32_t>::min());  // wraps
  EXPECT_EQ(integer_pow<uint8_t>(2, 9), 0);
  EXPECT_EQ(integer_pow<int64_t>(-1, -3), -1);
  EXPECT_EQ(integer_pow<int64_t>(-1, -2), 1);
  EXPECT_EQ(integer_pow<int64_t>(1, -5), 1);
  EXPECT_TRUE(is_invalid_integer_pow<int32_t>(2, -1));
  EXPECT_FALSE(is_invalid_integer_pow<int32_t>(-1, -1));
  EXPECT_FALSE(is_invalid_integer_pow<uint8_t>(2, 255));
}

TEST(LoopGeometry, LocatesRowMajorElements) {
  std::vector<float> memory(64);
  int64_t shape[] = {2, 3, 4};
  int64_t transposed[] = {1, 2, 6};  // elements
  int64_t broadcast[] = {0, 1, 0};
  DLTensor a{}, b{};
  for (DLTensor* t : {&a, &b}) {
    t->data = memory.data();
    t->ndim = 3;
    t->dtype = {kDLFloat, 32, 1};
    t->shape = shape;
  }
  a.strides = transposed;
  b.strides = broadcast;
  LoopGeometry<2, 4> g = StridedLoop({&a, &b}).geometry<2, 4>();
  for (int32_t narrow : {1, 0}) {
    g.narrow = narrow;
    for (int64_t i = 0; i < 24; ++i) {
      const int64_t i0 = i / 12, i1 = i / 4 % 3, i2 = i % 4;
      char* p[2];
      g.locate(i, p);
      EXPECT_EQ(p[0], reinterpret_cast<char*>(memory.data() + i0 * 1 + i1 * 2 + i2 * 6)) << i;
      EXPECT_EQ(p[1], reinterpret_cast<char*>(memory.data() + i1)) << i;
    }
  }
  EXPECT_FALSE(g.scalar(1));
  EXPECT_THROW((StridedLoop({&a, &b}).geometry<2, 1>()), Error);  // three dims do not merge into one
}

}  // namespace
}  // namespace ember::sdk
