// codegen_prelude.cuh -- what every CUDA source generated from EKIR starts
// with: the helpers the shared scalar expressions call (Note [C-family
// dialects] in <ember/kernel_ir/scalar_code.h>), with the catalogue's
// semantics as <ember/sdk/scalar_rules.hpp> has them for the CPU. NVRTC
// compiles it without any header. The generator defines EK_FAULT_* first.
typedef long long ek_int64;

// float16 through PTX's conversions (round to nearest even); bfloat16 is a
// float32's upper half, rounded to nearest even, NaN kept quiet.
__device__ inline float ek_half_to_float(unsigned short bits) {
  float value;
  asm("cvt.f32.f16 %0, %1;" : "=f"(value) : "h"(bits));
  return value;
}
__device__ inline unsigned short ek_float_to_half(float value) {
  unsigned short bits;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(value));
  return bits;
}
__device__ inline float ek_bfloat16_to_float(unsigned short bits) {
  return __int_as_float((int)((unsigned)bits << 16));
}
__device__ inline unsigned short ek_float_to_bfloat16(float value) {
  const unsigned u = (unsigned)__float_as_int(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
__device__ inline float ek_round_half(float v) { return ek_half_to_float(ek_float_to_half(v)); }
__device__ inline float ek_round_bfloat16(float v) { return ek_bfloat16_to_float(ek_float_to_bfloat16(v)); }

// maximum and minimum: NaN if either operand is NaN; reduce max and min: a
// NaN accumulator stays, a NaN value takes over.
template <class T>
__device__ inline T ek_maximum(T a, T b) {
  return a != a ? a : (b != b ? b : (a < b ? b : a));
}
template <class T>
__device__ inline T ek_minimum(T a, T b) {
  return a != a ? a : (b != b ? b : (b < a ? b : a));
}
template <class T>
__device__ inline T ek_sign(T x) {
  return x != x ? x : (T)(((T)0 < x) - (x < (T)0));
}
template <class T>
__device__ inline T ek_reduce_max(T acc, T value) {
  return (value > acc || value != value) ? value : acc;
}
template <class T>
__device__ inline T ek_reduce_min(T acc, T value) {
  return (value < acc || value != value) ? value : acc;
}

// Integers wrap modulo 2^bits in an unsigned type of at least 32 bits.
template <class T>
struct ek_wide {
  typedef unsigned type;
};
template <>
struct ek_wide<ek_int64> {
  typedef unsigned long long type;
};
template <class T>
__device__ inline T ek_wrap_add(T a, T b) {
  typedef typename ek_wide<T>::type W;
  return (T)((W)a + (W)b);
}
template <class T>
__device__ inline T ek_wrap_sub(T a, T b) {
  typedef typename ek_wide<T>::type W;
  return (T)((W)a - (W)b);
}
template <class T>
__device__ inline T ek_wrap_mul(T a, T b) {
  typedef typename ek_wide<T>::type W;
  return (T)((W)a * (W)b);
}
template <class T>
__device__ inline T ek_wrap_neg(T a) {
  typedef typename ek_wide<T>::type W;
  return (T)((W)0 - (W)a);
}

// Python's floor division and remainder; an integer divisor of 0 and an
// integer to a negative power set a fault bit and yield 0.
template <class T>
__device__ inline T ek_floor_divide(T a, T b, unsigned* fault) {
  const bool is_signed = (T)-1 < (T)0;
  if (b == (T)0) {
    *fault |= EK_FAULT_INTEGER_DIVISION_BY_ZERO;
    return (T)0;
  }
  if (is_signed && b == (T)-1) return ek_wrap_neg(a);
  const T q = (T)(a / b);
  return (is_signed && (T)(a % b) != (T)0 && ((a < (T)0) != (b < (T)0))) ? (T)(q - (T)1) : q;
}
template <class T>
__device__ inline T ek_remainder(T a, T b, unsigned* fault) {
  const bool is_signed = (T)-1 < (T)0;
  if (b == (T)0) {
    *fault |= EK_FAULT_INTEGER_DIVISION_BY_ZERO;
    return (T)0;
  }
  if (is_signed && b == (T)-1) return (T)0;
  const T r = (T)(a % b);
  return (is_signed && r != (T)0 && ((r < (T)0) != (b < (T)0))) ? (T)(r + b) : r;
}
template <class T>
__device__ inline T ek_integer_pow(T base, T exponent, unsigned* fault) {
  if ((T)-1 < (T)0 && exponent < (T)0) {
    if (base == (T)1) return (T)1;
    if (base == (T)-1) return (exponent & 1) ? (T)-1 : (T)1;
    *fault |= EK_FAULT_NEGATIVE_INTEGER_POWER;
    return (T)0;
  }
  T result = (T)1;
  while (exponent != (T)0) {
    if (exponent & 1) result = ek_wrap_mul(result, base);
    base = ek_wrap_mul(base, base);
    exponent = (T)(exponent >> 1);
  }
  return result;
}

// CPython's float floor division and remainder, so that they agree.
template <class T>
__device__ inline T ek_float_floor_divide(T a, T b) {
  if (b == (T)0) return a / b;
  const T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != (T)0 && ((b < (T)0) != (mod < (T)0))) div -= (T)1;
  if (div == (T)0) return copysign((T)0, a / b);
  T floored = floor(div);
  if (div - floored > (T)0.5) floored += (T)1;
  return floored;
}
template <class T>
__device__ inline T ek_float_remainder(T a, T b) {
  T r = fmod(a, b);
  if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r += b;
  return r;
}
__device__ inline float ek_floor_divide(float a, float b, unsigned*) { return ek_float_floor_divide(a, b); }
__device__ inline double ek_floor_divide(double a, double b, unsigned*) { return ek_float_floor_divide(a, b); }
__device__ inline float ek_remainder(float a, float b, unsigned*) { return ek_float_remainder(a, b); }
__device__ inline double ek_remainder(double a, double b, unsigned*) { return ek_float_remainder(a, b); }
