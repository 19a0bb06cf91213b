// Line ops: g spans the tensor's shape with dim collapsed, a work item owns
// one line of `length` elements along dim.

// Operands: out, x.
__kernel void cumsum(__global SUM_T* out, __global const T* x, long length, long out_stride, long x_stride,
                     Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  ACC acc = (ACC)0;
  for (long j = 0; j < length; ++j) {
    acc += (ACC)x[at[1] + j * x_stride];
    out[at[0] + j * out_stride] = (SUM_T)acc;
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
__kernel void sort_lines(__global T* values, __global long* indices, __global const T* x, long length,
                         long values_stride, long indices_stride, long x_stride, int descending, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  for (long j = 0; j < length; ++j) {
    const T v = x[at[2] + j * x_stride];
    long p = j;
    while (p > 0 && sorts_before(v, values[at[0] + (p - 1) * values_stride], descending)) {
      values[at[0] + p * values_stride] = values[at[0] + (p - 1) * values_stride];
      indices[at[1] + p * indices_stride] = indices[at[1] + (p - 1) * indices_stride];
      --p;
    }
    values[at[0] + p * values_stride] = v;
    indices[at[1] + p * indices_stride] = j;
  }
}
