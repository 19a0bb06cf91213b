// storage_types.hpp -- the host storage types of float16 and bfloat16, and
// the `is_reduced_float` trait that marks such types.
#ifndef EMBER_SDK_STORAGE_TYPES_HPP_
#define EMBER_SDK_STORAGE_TYPES_HPP_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ember::sdk {

namespace detail {
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace detail

// bfloat16: the upper half of a float32. Conversion rounds to nearest even
// and keeps NaN a (quiet) NaN.
struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f) {
    uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40u);
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);
      bits = static_cast<uint16_t>(u >> 16);
    }
  }
  explicit operator float() const { return detail::bits_float(uint32_t{bits} << 16); }
  static bfloat16 from_bits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

// float16 (IEEE binary16). The conversions use float arithmetic to round to
// nearest even, including subnormals (after Maratyszcza's FP16 library), so
// they need the default rounding mode and no flush-to-zero.
struct float16 {
  uint16_t bits = 0;

  float16() = default;
  explicit float16(float f) {
    float base = (std::fabs(f) * 0x1.0p+112f) * 0x1.0p-110f;
    const uint32_t w = detail::float_bits(f);
    const uint32_t shl1_w = w + w;
    const uint32_t sign = w & 0x80000000u;
    uint32_t bias = shl1_w & 0xff000000u;
    if (bias < 0x71000000u) bias = 0x71000000u;
    base = detail::bits_float((bias >> 1) + 0x07800000u) + base;
    const uint32_t b = detail::float_bits(base);
    const uint32_t nonsign = ((b >> 13) & 0x7c00u) + (b & 0x0fffu);
    bits = static_cast<uint16_t>((sign >> 16) | (shl1_w > 0xff000000u ? 0x7e00u : nonsign));
  }
  explicit operator float() const {
    const uint32_t w = uint32_t{bits} << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t two_w = w + w;
    const float normalized = detail::bits_float((two_w >> 4) + (0xe0u << 23)) * 0x1.0p-112f;
    const float denormalized = detail::bits_float((two_w >> 17) | (126u << 23)) - 0.5f;
    const uint32_t magnitude = two_w < (1u << 27) ? detail::float_bits(denormalized) : detail::float_bits(normalized);
    return detail::bits_float(sign | magnitude);
  }
  static float16 from_bits(uint16_t b) {
    float16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(bfloat16) == 2 && sizeof(float16) == 2);

// Whether T is a reduced-precision float, stored narrow and computed in
// float32 (ops.md "Floating point"). A plugin with storage types of its own
// (a device's half type) specialises it for them, so that the scalar rules
// (scalar_rules.hpp) treat them alike.
template <class T>
struct is_reduced_float : std::false_type {};
template <>
struct is_reduced_float<float16> : std::true_type {};
template <>
struct is_reduced_float<bfloat16> : std::true_type {};

}  // namespace ember::sdk

#endif  // EMBER_SDK_STORAGE_TYPES_HPP_
