// Elementwise kernels: one per shape of signature, the op chosen by a code
// (Note [One program per dtype] in program_source.cpp). The switch bodies
// are generated from kernels/elementwise_ops.cpp and appended to the program.
T unary_op(int op, T x);
uchar unary_bool_op(int op, T x);
T binary_op(int op, T x, T y, __global int* error);
uchar binary_bool_op(int op, T x, T y);
// Writes x converted to `dtype` (an ember_dtype) at element `offset` of out.
void store_as(__global uchar* out, int dtype, long offset, T x);

#if IS_FLOATING
// CPython's float floor division, so that it agrees with remainder_float.
T floor_divide_float(T a, T b) {
  if (b == (T)0) return a / b;
  const T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != (T)0 && ((b < (T)0) != (mod < (T)0))) div -= (T)1;
  if (div == (T)0) return copysign((T)0, a / b);
  T floored = floor(div);
  if (div - floored > (T)0.5) floored += (T)1;
  return floored;
}

T remainder_float(T a, T b) {
  T r = fmod(a, b);
  if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r += b;
  return r;
}

// erfinv and digamma as ember/sdk/special_math.hpp computes them (Note
// [erfinv by Newton steps] there), in T.
T erfinv_float(T y) {
  const T magnitude = fabs(y);
  if (!(magnitude < (T)1)) return magnitude == (T)1 ? y * (T)INFINITY : (T)NAN;
  T w = -log(((T)1 - y) * ((T)1 + y));
  T p;
  if (w < (T)5) {
    w -= (T)2.5;
    p = (T)2.81022636e-08;
    p = (T)3.43273939e-07 + p * w;
    p = (T)-3.5233877e-06 + p * w;
    p = (T)-4.39150654e-06 + p * w;
    p = (T)0.00021858087 + p * w;
    p = (T)-0.00125372503 + p * w;
    p = (T)-0.00417768164 + p * w;
    p = (T)0.246640727 + p * w;
    p = (T)1.50140941 + p * w;
  } else {
    w = sqrt(w) - (T)3;
    p = (T)-0.000200214257;
    p = (T)0.000100950558 + p * w;
    p = (T)0.00134934322 + p * w;
    p = (T)-0.00367342844 + p * w;
    p = (T)0.00573950773 + p * w;
    p = (T)-0.0076224613 + p * w;
    p = (T)0.00943887047 + p * w;
    p = (T)1.00167406 + p * w;
    p = (T)2.83297682 + p * w;
  }
  const T two_over_sqrt_pi = (T)1.12837916709551257390;
  T x = p * y;
  if (magnitude <= (T)0.5) {
    for (int step = 0; step < 2; ++step) x -= (erf(x) - y) / (two_over_sqrt_pi * exp(-x * x));
    return x;
  }
  const T complement = (T)1 - magnitude;
  x = fabs(x);
  for (int step = 0; step < 4; ++step) {
    const T tail = erfc(x);
    x += log(tail / complement) * tail / (two_over_sqrt_pi * exp(-x * x));
  }
  return y < (T)0 ? -x : x;
}

T digamma_float(T x) {
  if (x == (T)0) return signbit(x) ? (T)INFINITY : (T)-INFINITY;
  const T pi = (T)3.14159265358979323846;
  T correction = (T)0;
  if (x < (T)0) {
    if (x == floor(x)) return (T)NAN;
    correction = pi / tan(pi * (x - round(x)));
    x = (T)1 - x;
  }
  while (x < (T)10) {
    correction += (T)1 / x;
    x += (T)1;
  }
  const T w = (T)1 / (x * x);
  const T series =
      w * ((T)(1.0 / 12) -
           w * ((T)(1.0 / 120) -
                w * ((T)(1.0 / 252) - w * ((T)(1.0 / 240) - w * ((T)(1.0 / 132) - w * ((T)(691.0 / 32760) - w / (T)12))))));
  return log(x) - (T)0.5 / x - series - correction;
}
#elif !IS_BOOL
// Division by -1 is negation: INT_MIN / -1 traps on some hardware.
T floor_divide_int(T a, T b, __global int* error) {
  if (b == (T)0) {
    *error = ERROR_DIVISION_BY_ZERO;
    return (T)0;
  }
#if IS_SIGNED
  if (b == (T)-1) return (T)(-(U)a);
  const T q = a / b;
  return (a % b != (T)0 && ((a < (T)0) != (b < (T)0))) ? (T)(q - (T)1) : q;
#else
  return a / b;
#endif
}

T remainder_int(T a, T b, __global int* error) {
  if (b == (T)0) {
    *error = ERROR_DIVISION_BY_ZERO;
    return (T)0;
  }
#if IS_SIGNED
  if (b == (T)-1) return (T)0;
  const T r = a % b;
  return (r != (T)0 && ((r < (T)0) != (b < (T)0))) ? (T)(r + b) : r;
#else
  return a % b;
#endif
}

// By squaring, wrapping; a negative exponent is valid only for a base of
// 1 or -1.
T pow_int(T base, T exponent, __global int* error) {
#if IS_SIGNED
  if (exponent < (T)0) {
    if (base == (T)1 || base == (T)-1) return (base == (T)-1 && (exponent & 1)) ? (T)-1 : (T)1;
    *error = ERROR_NEGATIVE_POWER;
    return (T)0;
  }
#endif
  U result = 1;
  U factor = (U)base;
  while (exponent != (T)0) {
    if (exponent & 1) result = (U)(result * factor);
    factor = (U)(factor * factor);
    exponent = (T)(exponent >> 1);
  }
  return (T)result;
}
#endif

__kernel void unary(__global S* out, __global const S* x, int op, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  STORE(out, at[0], unary_op(op, LOAD(x, at[1])));
}

__kernel void unary_bool(__global uchar* out, __global const S* x, int op, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  out[at[0]] = unary_bool_op(op, LOAD(x, at[1]));
}

__kernel void binary(__global S* out, __global const S* x, __global const S* y, int op, __global int* error,
                     Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  STORE(out, at[0], binary_op(op, LOAD(x, at[1]), LOAD(y, at[2]), error));
}

__kernel void binary_bool(__global uchar* out, __global const S* x, __global const S* y, int op, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  out[at[0]] = binary_bool_op(op, LOAD(x, at[1]), LOAD(y, at[2]));
}

__kernel void where_select(__global S* out, __global const uchar* condition, __global const S* a,
                           __global const S* b, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  STORE(out, at[0], condition[at[1]] ? LOAD(a, at[2]) : LOAD(b, at[3]));
}

// Operand 0 counts in elements of out_dtype.
__kernel void copy_to(__global uchar* out, int out_dtype, __global const S* x, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  store_as(out, out_dtype, at[0], LOAD(x, at[1]));
}

__kernel void fill(__global S* out, T value, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  STORE(out, at[0], value);
}

// Integers compute in ACC (unsigned 64 bits), which wraps like int64.
__kernel void arange(__global S* out, ACC start, ACC step, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  STORE(out, at[0], (T)(start + (ACC)i * step));
}
