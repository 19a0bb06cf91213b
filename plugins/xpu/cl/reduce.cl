// Reductions: one work item per output element walks its reduced elements
// in order. `outer` spans out's (keepdim) shape with operands out and x;
// `inner` spans the reduced dims with operand x, relative to outer's x.
#define REDUCE_SUM 0
#define REDUCE_PROD 1
#define REDUCE_MEAN 2
#define REDUCE_MAX 3
#define REDUCE_MIN 4

__kernel void reduce_sum(__global SUM_T* out, __global const T* x, int op, Geometry outer, Geometry inner) {
  const long o = get_global_id(0);
  if (o >= outer.numel) return;
  long at[MAX_OPERANDS];
  long in[MAX_OPERANDS];
  locate(&outer, o, at);
  ACC acc = op == REDUCE_PROD ? (ACC)1 : (ACC)0;
  for (long r = 0; r < inner.numel; ++r) {
    locate(&inner, r, in);
    const ACC v = (ACC)x[at[1] + in[0]];
    acc = op == REDUCE_PROD ? acc * v : acc + v;
  }
#if IS_FLOATING
  if (op == REDUCE_MEAN) acc /= (ACC)inner.numel;
#endif
  out[at[0]] = (SUM_T)acc;
}

// NaN wins and ends the walk; inner is never empty (the core refuses that).
__kernel void reduce_extreme(__global T* out, __global const T* x, int op, Geometry outer, Geometry inner) {
  const long o = get_global_id(0);
  if (o >= outer.numel) return;
  long at[MAX_OPERANDS];
  long in[MAX_OPERANDS];
  locate(&outer, o, at);
  locate(&inner, 0, in);
  T best = x[at[1] + in[0]];
  for (long r = 1; r < inner.numel && !IS_NAN(best); ++r) {
    locate(&inner, r, in);
    const T v = x[at[1] + in[0]];
    if (IS_NAN(v) || (op == REDUCE_MAX ? v > best : v < best)) best = v;
  }
  out[at[0]] = best;
}

// The first extreme's position in inner's row-major order.
__kernel void reduce_arg(__global long* out, __global const T* x, int op, Geometry outer, Geometry inner) {
  const long o = get_global_id(0);
  if (o >= outer.numel) return;
  long at[MAX_OPERANDS];
  long in[MAX_OPERANDS];
  locate(&outer, o, at);
  locate(&inner, 0, in);
  T best = x[at[1] + in[0]];
  long best_at = 0;
  for (long r = 1; r < inner.numel && !IS_NAN(best); ++r) {
    locate(&inner, r, in);
    const T v = x[at[1] + in[0]];
    if (IS_NAN(v) || (op == REDUCE_MAX ? v > best : v < best)) {
      best = v;
      best_at = r;
    }
  }
  out[at[0]] = best_at;
}
