// Reductions: one work item per output element walks its reduced elements
// in order. `outer` spans out's (keepdim) shape with operands out and x;
// `inner` spans the reduced dims with operand x, relative to outer's x.
#define REDUCE_SUM 0
#define REDUCE_PROD 1
#define REDUCE_MEAN 2
#define REDUCE_MAX 3
#define REDUCE_MIN 4

__kernel void reduce_sum(__global SUM_S* out, __global const S* x, int op, Geometry outer, Geometry inner) {
  const long o = get_global_id(0);
  if (o >= outer.numel) return;
  long at[MAX_OPERANDS];
  long in[MAX_OPERANDS];
  locate(&outer, o, at);
  ACC acc = op == REDUCE_PROD ? (ACC)1 : (ACC)0;
  for (long r = 0; r < inner.numel; ++r) {
    locate(&inner, r, in);
    const ACC v = (ACC)LOAD(x, at[1] + in[0]);
    acc = op == REDUCE_PROD ? acc * v : acc + v;
  }
#if IS_FLOATING
  if (op == REDUCE_MEAN) acc /= (ACC)inner.numel;
#endif
  STORE_SUM(out, at[0], acc);
}

// NaN wins and ends the walk; inner is never empty (the core refuses that).
__kernel void reduce_extreme(__global S* out, __global const S* x, int op, Geometry outer, Geometry inner) {
  const long o = get_global_id(0);
  if (o >= outer.numel) return;
  long at[MAX_OPERANDS];
  long in[MAX_OPERANDS];
  locate(&outer, o, at);
  locate(&inner, 0, in);
  T best = LOAD(x, at[1] + in[0]);
  for (long r = 1; r < inner.numel && !IS_NAN(best); ++r) {
    locate(&inner, r, in);
    const T v = LOAD(x, at[1] + in[0]);
    if (IS_NAN(v) || (op == REDUCE_MAX ? v > best : v < best)) best = v;
  }
  STORE(out, at[0], best);
}

// The first extreme's position in inner's row-major order.
__kernel void reduce_arg(__global long* out, __global const S* x, int op, Geometry outer, Geometry inner) {
  const long o = get_global_id(0);
  if (o >= outer.numel) return;
  long at[MAX_OPERANDS];
  long in[MAX_OPERANDS];
  locate(&outer, o, at);
  locate(&inner, 0, in);
  T best = LOAD(x, at[1] + in[0]);
  long best_at = 0;
  for (long r = 1; r < inner.numel && !IS_NAN(best); ++r) {
    locate(&inner, r, in);
    const T v = LOAD(x, at[1] + in[0]);
    if (IS_NAN(v) || (op == REDUCE_MAX ? v > best : v < best)) {
      best = v;
      best_at = r;
    }
  }
  out[at[0]] = best_at;
}
