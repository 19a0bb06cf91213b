#include "half_convert.h"

#include <algorithm>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EMBER_CPU_HAS_F16C_PATH 1
#endif

namespace ember::cpu {

// Note [Hardware float16]: the SDK's float16 conversions are integer and
// float bit arithmetic that GCC does not vectorise, about a nanosecond an
// element: a cache-resident float16 add ran at four times PyTorch's time.
// x86-64 CPUs since 2013 (F16C, in x86-64-v3) convert eight elements per
// instruction, rounding to nearest even and keeping subnormals, which gives
// the SDK's bits for every value but NaN payloads (the SDK writes one quiet
// NaN, the instruction keeps the payload's upper bits); both stay NaN.
// Which routine runs is decided once, from the CPU's features; a run's last
// partial group goes through the same instruction, padded, so an element's
// bits never depend on where a run ends.
namespace {

constexpr int64_t kGroup = 8;

void widen_portable(const sdk::float16* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

void narrow_portable(const float* in, sdk::float16* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = sdk::float16(in[i]);
}

#ifdef EMBER_CPU_HAS_F16C_PATH
__attribute__((target("avx,f16c"))) void widen_f16c(const sdk::float16* in, float* out, int64_t n) {
  const int64_t whole = n - n % kGroup;
  for (int64_t i = 0; i < whole; i += kGroup) {
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  }
  if (whole == n) return;
  sdk::float16 padded[kGroup] = {};
  float widened[kGroup];
  std::copy(in + whole, in + n, padded);
  _mm256_storeu_ps(widened, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(padded))));
  std::copy(widened, widened + (n - whole), out + whole);
}

__attribute__((target("avx,f16c"))) void narrow_f16c(const float* in, sdk::float16* out, int64_t n) {
  constexpr int kNearestEven = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const int64_t whole = n - n % kGroup;
  for (int64_t i = 0; i < whole; i += kGroup) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(in + i), kNearestEven));
  }
  if (whole == n) return;
  float padded[kGroup] = {};
  sdk::float16 narrowed[kGroup];
  std::copy(in + whole, in + n, padded);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(narrowed), _mm256_cvtps_ph(_mm256_loadu_ps(padded), kNearestEven));
  std::copy(narrowed, narrowed + (n - whole), out + whole);
}
#endif

struct HalfConversions {
  void (*widen)(const sdk::float16*, float*, int64_t);
  void (*narrow)(const float*, sdk::float16*, int64_t);
};

HalfConversions pick_conversions() {
#ifdef EMBER_CPU_HAS_F16C_PATH
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c")) return {widen_f16c, narrow_f16c};
#endif
  return {widen_portable, narrow_portable};
}

const HalfConversions& conversions() {
  static const HalfConversions picked = pick_conversions();
  return picked;
}

}  // namespace

void widen_float16(const sdk::float16* in, float* out, int64_t n) { conversions().widen(in, out, n); }

void narrow_float16(const float* in, sdk::float16* out, int64_t n) { conversions().narrow(in, out, n); }

}  // namespace ember::cpu
