// Index ops. Index tensors are int64 or int32 (index_is_long, from the
// host's sdk::index_is_int64, says which);
// a value outside [0, size) sets the error word and writes nothing.
long read_index(__global const void* index, int index_is_long, long at) {
  return index_is_long ? ((__global const long*)index)[at] : (long)((__global const int*)index)[at];
}

#if IS_BOOL
#define ADD_WRAPPING(a, b) (T)((a) || (b))
#elif IS_FLOATING
#define ADD_WRAPPING(a, b) ((a) + (b))
#else
#define ADD_WRAPPING(a, b) (T)((U)(a) + (U)(b))
#endif

// index_select and gather: out[p] = x[p with p[dim] = index[p']]. g spans
// out with operands out, x (its dim stride zeroed) and index (its strides;
// for index_select zero except along dim).
__kernel void take(__global S* out, __global const S* x, __global const void* index, int index_is_long,
                   long dim_size, long x_dim_stride, __global int* error, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  const long k = read_index(index, index_is_long, at[2]);
  if (k < 0 || k >= dim_size) {
    *error = ERROR_INDEX_OUT_OF_RANGE;
    return;
  }
  STORE(out, at[0], LOAD(x, at[1] + k * x_dim_stride));
}

// scatter_add into out (already holding x). Elements of index that differ
// only along dim write to one line of out, so a work item owns a line: g
// spans index's shape with dim collapsed, operands out (dim stride zeroed),
// src and index; the item walks the `length` entries along dim in order.
__kernel void scatter_add(__global S* out, __global const S* src, __global const void* index, int index_is_long,
                          long length, long out_dim_size, long out_dim_stride, long src_dim_stride,
                          long index_dim_stride, __global int* error, Geometry g) {
  const long i = get_global_id(0);
  if (i >= g.numel) return;
  long at[MAX_OPERANDS];
  locate(&g, i, at);
  for (long j = 0; j < length; ++j) {
    const long k = read_index(index, index_is_long, at[2] + j * index_dim_stride);
    if (k < 0 || k >= out_dim_size) {
      *error = ERROR_INDEX_OUT_OF_RANGE;
      return;
    }
    const long target = at[0] + k * out_dim_stride;
    STORE(out, target, ADD_WRAPPING(LOAD(out, target), LOAD(src, at[1] + j * src_dim_stride)));
  }
}
