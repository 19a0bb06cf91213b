// Element types on the device. float16 and bfloat16 are stored as their
// bits and computed in float32 (ops.md "Floating point"); every other dtype
// is its own compute type, and conversions follow the SDK's scalar rules.
// Shared by the CUDA and HIP builds.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <ember/ember_plugin.hpp>

#include "../gpu_runtime.h"

#if defined(EMBER_GPU_HIP)
#include <hip/hip_fp16.h>
#else
#include <cuda_fp16.h>
#endif

namespace ember::gpu {

struct Half {
  uint16_t bits;
  Half() = default;
  EMBER_HOST_DEVICE explicit Half(float f) : bits(__half_as_ushort(__float2half_rn(f))) {}
  EMBER_HOST_DEVICE explicit operator float() const { return __half2float(__ushort_as_half(bits)); }
};

// memcpy is the bit cast both sides compile (and fold into a move).
EMBER_HOST_DEVICE inline uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
EMBER_HOST_DEVICE inline float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  // Round to nearest even; a NaN stays a (quiet) NaN.
  EMBER_HOST_DEVICE explicit BFloat16(float f) {
    const uint32_t u = bits_of(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40u);
    } else {
      bits = static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
  }
  EMBER_HOST_DEVICE explicit operator float() const { return float_of(uint32_t{bits} << 16); }
};

}  // namespace ember::gpu

// The device storage types compute like the SDK's (ember/sdk/scalar_rules.hpp).
namespace ember::sdk {
template <>
struct is_reduced_float<gpu::Half> : std::true_type {};
template <>
struct is_reduced_float<gpu::BFloat16> : std::true_type {};
}  // namespace ember::sdk

namespace ember::gpu {

using sdk::Compute;
using sdk::convert;
using sdk::is_floating_v;
using sdk::is_integer_v;
using sdk::is_reduced_float_v;
using sdk::to_compute;

// The device storage type of an SDK storage type.
template <class T>
struct DeviceTypeOf {
  using type = T;
};
template <>
struct DeviceTypeOf<sdk::float16> {
  using type = Half;
};
template <>
struct DeviceTypeOf<sdk::bfloat16> {
  using type = BFloat16;
};

// Calls fn(TypeTag<DeviceType>{}) for the device type of `dtype`.
template <class Fn>
decltype(auto) visit_device_dtype(ember_dtype dtype, Fn&& fn) {
  return sdk::visit_dtype(dtype, [&](auto tag) {
    return fn(sdk::TypeTag<typename DeviceTypeOf<typename decltype(tag)::type>::type>{});
  });
}

}  // namespace ember::gpu
