// Shared by every program. The generator has defined, for the program's
// dtype: S (storage type), T (compute type), U (T's unsigned twin), ACC
// (accumulation type), IS_FLOATING, IS_BOOL, IS_SIGNED, and which of the
// storage kinds of Note [XPU dtypes] (dtypes.h) it is: STORAGE_FLOAT16,
// STORAGE_BFLOAT16 or neither.

// Note [Storage and compute types]: kernels take buffers of S and compute
// in T, reading element i of p with LOAD(p, i) and writing a T with
// STORE(p, i, v). For most dtypes S is T; float16 and bfloat16 load into
// float and round to nearest even on store, since neither can be computed
// on without cl_khr_fp16 (and bfloat16 not at all).
#if STORAGE_FLOAT16
#define LOAD(p, i) vload_half((i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (i), (p))
#elif STORAGE_BFLOAT16
#define LOAD(p, i) as_float((uint)(p)[i] << 16)
#define STORE(p, i, v) ((p)[i] = bfloat16_bits(v))
#else
#define LOAD(p, i) ((p)[i])
#define STORE(p, i, v) ((p)[i] = (v))
#endif

// sum, prod and cumsum write floating dtypes as themselves and the others
// as int64 (ops.md "Reductions").
#if IS_FLOATING
#define SUM_S S
#define STORE_SUM(p, i, v) STORE(p, i, (T)(v))
#else
#define SUM_S long
#define STORE_SUM(p, i, v) ((p)[i] = (long)(v))
#endif

// Note [Geometry]: the host describes a loop over a shape walked in
// row-major order, and for each of up to MAX_OPERANDS tensors its element
// strides and first element. Dimensions of size 1 are dropped and mergeable
// ones merged on the host first, so MAX_DIMS bounds the irregular ones only.
// The layout matches the host's struct Geometry (launch.h).
#define MAX_DIMS 8
#define MAX_OPERANDS 4
typedef struct {
  long numel;
  long shape[MAX_DIMS];
  long strides[MAX_OPERANDS][MAX_DIMS];
  long first[MAX_OPERANDS];
  int ndim;
  int unused;
} Geometry;

// Element offsets of every operand at row-major position `linear`.
void locate(const Geometry* g, long linear, long* offsets) {
  for (int k = 0; k < MAX_OPERANDS; ++k) offsets[k] = g->first[k];
  for (int d = g->ndim - 1; d >= 0; --d) {
    const long index = linear % g->shape[d];
    linear /= g->shape[d];
    for (int k = 0; k < MAX_OPERANDS; ++k) offsets[k] += index * g->strides[k][d];
  }
}

// Codes a kernel writes to its error word; the host turns them into statuses.
#define ERROR_DIVISION_BY_ZERO 1
#define ERROR_NEGATIVE_POWER 2
#define ERROR_INDEX_OUT_OF_RANGE 3

#if IS_FLOATING
#define IS_NAN(v) isnan(v)
#else
#define IS_NAN(v) 0
#endif
