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
