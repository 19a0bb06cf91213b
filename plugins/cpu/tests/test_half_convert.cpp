// The CPU plugin's runs of float16 conversions (Note [Hardware float16])
// against the SDK's element conversions: the same bits for every value but
// NaN payloads, whatever the length of the run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "../kernels/half_convert.h"

namespace ember::cpu {
namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(HalfConvert, EveryFloat16WidensAsTheSdkWidens) {
  std::vector<sdk::float16> halves(1 << 16);
  for (uint32_t b = 0; b < halves.size(); ++b) halves[b] = sdk::float16::from_bits(static_cast<uint16_t>(b));
  std::vector<float> widened(halves.size());
  widen_float16(halves.data(), widened.data(), static_cast<int64_t>(halves.size()));
  for (size_t b = 0; b < halves.size(); ++b) {
    const float expected = static_cast<float>(halves[b]);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(widened[b])) << "float16 bits " << b;
    } else {
      EXPECT_EQ(bits_of(widened[b]), bits_of(expected)) << "float16 bits " << b;
    }
  }
}

// Every float16, the float32 values one unit in the last place on either
// side of it and of the midpoint to the next float16 (where rounding to
// nearest even decides), the overflow edge, and random bit patterns.
std::vector<float> narrowing_cases() {
  std::vector<float> cases;
  for (uint32_t b = 0; b < (1u << 16); ++b) {
    const float low = static_cast<float>(sdk::float16::from_bits(static_cast<uint16_t>(b)));
    const float high = static_cast<float>(sdk::float16::from_bits(static_cast<uint16_t>(b + 1)));
    if (!std::isfinite(low)) continue;
    const uint32_t middle = bits_of(std::isfinite(high) && std::signbit(low) == std::signbit(high) ? (low + high) / 2
                                                                                                     : low);
    for (uint32_t u : {bits_of(low) - 1, bits_of(low), bits_of(low) + 1, middle - 1, middle, middle + 1}) {
      cases.push_back(float_of(u));
    }
  }
  for (float f : {65504.0f, 65519.0f, 65520.0f, 1e10f, -1e10f, INFINITY, -INFINITY, 5.9604645e-8f, 2.9802322e-8f,
                  2.9802326e-8f, 1e-30f, -0.0f}) {
    cases.push_back(f);
  }
  std::mt19937 random(7);
  for (int i = 0; i < 200000; ++i) cases.push_back(float_of(static_cast<uint32_t>(random())));
  return cases;
}

TEST(HalfConvert, FloatsNarrowAsTheSdkNarrows) {
  const std::vector<float> cases = narrowing_cases();
  std::vector<sdk::float16> narrowed(cases.size());
  narrow_float16(cases.data(), narrowed.data(), static_cast<int64_t>(cases.size()));
  for (size_t i = 0; i < cases.size(); ++i) {
    const sdk::float16 expected(cases[i]);
    if (std::isnan(cases[i])) {
      EXPECT_TRUE(std::isnan(static_cast<float>(narrowed[i]))) << "float32 bits " << bits_of(cases[i]);
    } else {
      EXPECT_EQ(narrowed[i].bits, expected.bits) << "float32 bits " << bits_of(cases[i]);
    }
  }
}

TEST(HalfConvert, RunsOfEveryLengthConvertEveryElementAndNothingElse) {
  constexpr uint16_t kUntouched = 0x7bff;
  for (int64_t n = 0; n <= 19; ++n) {
    std::vector<float> values(n + 1, -1.0f);
    for (int64_t i = 0; i < n; ++i) values[i] = 0.5f + static_cast<float>(i);
    std::vector<sdk::float16> narrowed(n + 1, sdk::float16::from_bits(kUntouched));
    narrow_float16(values.data(), narrowed.data(), n);
    std::vector<float> widened(n + 1, -2.0f);
    widen_float16(narrowed.data(), widened.data(), n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(widened[i], values[i]) << "run of " << n << ", element " << i;
    EXPECT_EQ(narrowed[n].bits, kUntouched) << "run of " << n;
    EXPECT_EQ(widened[n], -2.0f) << "run of " << n;
  }
}

}  // namespace
}  // namespace ember::cpu
