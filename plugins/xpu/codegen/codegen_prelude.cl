// codegen_prelude.cl -- what every program generated from EKIR starts with,
// after bfloat16.cl: the helpers the shared scalar expressions call
// (Note [C-family dialects] in <ember/kernel_ir/scalar_code.h>), overloaded
// on every compute type, with the catalogue's semantics as
// <ember/sdk/scalar_rules.hpp> has them for the CPU. The generator defines
// EK_FP64 (and enables cl_khr_fp64) for a kernel that computes in double,
// and EK_FAULT_* first.
#define EK_OVERLOAD __attribute__((overloadable))

float ek_round_half(float v) {
  ushort bits;
  vstore_half_rte(v, 0, (half*)&bits);
  return vload_half(0, (const half*)&bits);
}
float ek_round_bfloat16(float v) { return as_float((uint)bfloat16_bits(v) << 16); }

// maximum and minimum: NaN if either operand is NaN; reduce max and min: a
// NaN accumulator stays, a NaN value takes over.
#define EK_NUMERIC(T)                                                                                      \
  EK_OVERLOAD T ek_maximum(T a, T b) { return a != a ? a : (b != b ? b : (a < b ? b : a)); }               \
  EK_OVERLOAD T ek_minimum(T a, T b) { return a != a ? a : (b != b ? b : (b < a ? b : a)); }               \
  EK_OVERLOAD T ek_sign(T x) { return x != x ? x : (T)(((T)0 < x) - (x < (T)0)); }                         \
  EK_OVERLOAD T ek_reduce_max(T acc, T value) { return (value > acc || value != value) ? value : acc; }   \
  EK_OVERLOAD T ek_reduce_min(T acc, T value) { return (value < acc || value != value) ? value : acc; }

// The same maximum and minimum lane by lane, for float32 pointwise kernels
// computed on float8 (Note [Vector pointwise kernels]): select takes its
// second operand where the mask lane is true.
EK_OVERLOAD float8 ek_maximum(float8 a, float8 b) {
  return select(select(select(a, b, a < b), b, isnan(b)), a, isnan(a));
}
EK_OVERLOAD float8 ek_minimum(float8 a, float8 b) {
  return select(select(select(a, b, b < a), b, isnan(b)), a, isnan(a));
}

// Integers wrap modulo 2^bits in an unsigned type W of at least 32 bits;
// division by zero and negative powers set a fault bit and yield 0.
#define EK_INTEGER(T, W, SIGNED)                                                                         \
  EK_NUMERIC(T)                                                                                          \
  EK_OVERLOAD T ek_wrap_add(T a, T b) { return (T)((W)a + (W)b); }                                       \
  EK_OVERLOAD T ek_wrap_sub(T a, T b) { return (T)((W)a - (W)b); }                                       \
  EK_OVERLOAD T ek_wrap_mul(T a, T b) { return (T)((W)a * (W)b); }                                       \
  EK_OVERLOAD T ek_wrap_neg(T a) { return (T)((W)0 - (W)a); }                                            \
  EK_OVERLOAD T ek_floor_divide(T a, T b, uint* fault) {                                                 \
    if (b == (T)0) {                                                                                     \
      *fault |= EK_FAULT_INTEGER_DIVISION_BY_ZERO;                                                       \
      return (T)0;                                                                                       \
    }                                                                                                    \
    if (SIGNED && b == (T)-1) return ek_wrap_neg(a);                                                     \
    const T q = (T)(a / b);                                                                              \
    return (SIGNED && (T)(a % b) != (T)0 && ((a < (T)0) != (b < (T)0))) ? (T)(q - (T)1) : q;             \
  }                                                                                                      \
  EK_OVERLOAD T ek_remainder(T a, T b, uint* fault) {                                                    \
    if (b == (T)0) {                                                                                     \
      *fault |= EK_FAULT_INTEGER_DIVISION_BY_ZERO;                                                       \
      return (T)0;                                                                                       \
    }                                                                                                    \
    if (SIGNED && b == (T)-1) return (T)0;                                                               \
    const T r = (T)(a % b);                                                                              \
    return (SIGNED && r != (T)0 && ((r < (T)0) != (b < (T)0))) ? (T)(r + b) : r;                         \
  }                                                                                                      \
  EK_OVERLOAD T ek_integer_pow(T base, T exponent, uint* fault) {                                        \
    if (SIGNED && exponent < (T)0) {                                                                     \
      if (base == (T)1) return (T)1;                                                                     \
      if (base == (T)-1) return (exponent & 1) ? (T)-1 : (T)1;                                           \
      *fault |= EK_FAULT_NEGATIVE_INTEGER_POWER;                                                         \
      return (T)0;                                                                                       \
    }                                                                                                    \
    T result = (T)1;                                                                                     \
    while (exponent != (T)0) {                                                                           \
      if (exponent & 1) result = ek_wrap_mul(result, base);                                              \
      base = ek_wrap_mul(base, base);                                                                    \
      exponent = (T)(exponent >> 1);                                                                     \
    }                                                                                                    \
    return result;                                                                                       \
  }

// CPython's float floor division and remainder, so that they agree
// (1.0 // 0.1 == 9.0); a divisor of 0 gives a / b.
#define EK_FLOATING(T)                                                                                   \
  EK_NUMERIC(T)                                                                                          \
  EK_OVERLOAD T ek_floor_divide(T a, T b, uint* fault) {                                                 \
    (void)fault;                                                                                         \
    if (b == (T)0) return a / b;                                                                         \
    const T mod = fmod(a, b);                                                                            \
    T div = (a - mod) / b;                                                                               \
    if (mod != (T)0 && ((b < (T)0) != (mod < (T)0))) div -= (T)1;                                        \
    if (div == (T)0) return copysign((T)0, a / b);                                                       \
    T floored = floor(div);                                                                              \
    if (div - floored > (T)0.5) floored += (T)1;                                                         \
    return floored;                                                                                      \
  }                                                                                                      \
  EK_OVERLOAD T ek_remainder(T a, T b, uint* fault) {                                                    \
    (void)fault;                                                                                         \
    T r = fmod(a, b);                                                                                    \
    if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r += b;                                                 \
    return r;                                                                                            \
  }

EK_INTEGER(uchar, uint, 0)
EK_INTEGER(char, uint, 1)
EK_INTEGER(short, uint, 1)
EK_INTEGER(int, uint, 1)
EK_INTEGER(long, ulong, 1)
EK_FLOATING(float)
#if EK_FP64
EK_FLOATING(double)
#endif
