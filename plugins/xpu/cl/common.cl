// Shared by every program. The generator has defined, for the program's
// dtype: T (storage type), U (unsigned twin), ACC (accumulation type),
// SUM_T (output of sum/prod/cumsum), IS_FLOATING, IS_BOOL, IS_SIGNED.

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
