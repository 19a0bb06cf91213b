// Line ops: g spans the tensor's shape with dim collapsed, a work item owns
// one line of `length` elements along dim.

// Operands: out, x.
__kernel void cumsum(__global SUM_S* out, __global const S* x, long length, long out_stride, long x_stride,
                     Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  ACC acc = (ACC)0;
  for (long j = 0; j < length; ++j) {
    acc += (ACC)LOAD(x, at[1] + j * x_stride);
    STORE_SUM(out, at[0] + j * out_stride, acc);
  }
}

// NaN sorts above every number.
int sorts_before(T a, T b, int descending) {
  if (descending) return (IS_NAN(a) && !IS_NAN(b)) || a > b;
  return (!IS_NAN(a) && IS_NAN(b)) || a < b;
}

// Stable insertion sort straight into the outputs: lines are short in the
// workloads this serves, and it needs no scratch memory. Operands: values,
// indices, x.
__kernel void sort_lines(__global S* values, __global long* indices, __global const S* x, long length,
                         long values_stride, long indices_stride, long x_stride, int descending, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  for (long j = 0; j < length; ++j) {
    const T v = LOAD(x, at[2] + j * x_stride);
    long p = j;
    while (p > 0 && sorts_before(v, LOAD(values, at[0] + (p - 1) * values_stride), descending)) {
      STORE(values, at[0] + p * values_stride, LOAD(values, at[0] + (p - 1) * values_stride));
      indices[at[1] + p * indices_stride] = indices[at[1] + (p - 1) * indices_stride];
      --p;
    }
    STORE(values, at[0] + p * values_stride, v);
    indices[at[1] + p * indices_stride] = j;
  }
}
