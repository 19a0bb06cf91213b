// A batched matrix product C[b] = A[b] @ B[b] as plain data, for the
// vendor library path (matmul_cublas.cpp) and the plugin's own kernel.
#pragma once

#include <cstdint>

#include <ember/ember_plugin.h>

#include "../gpu_runtime.h"

namespace ember::gpu {

// A [rows, cols] matrix per batch; strides in elements.
struct Matrix {
  void* data;
  int64_t batch_stride;
  int64_t row_stride;
  int64_t col_stride;
};

struct GemmProblem {
  ember_dtype dtype;
  int64_t batches, m, n, k;
  Matrix a;  // [m, k]
  Matrix b;  // [k, n]
  Matrix c;  // [m, n]
  int32_t device;
  cudaStream_t stream;
};

#if defined(EMBER_GPU_HAS_CUBLAS)
// Runs the product through cuBLAS and returns true, or returns false for
// what cuBLAS does not take (integer dtypes, operands with neither dim of
// unit stride, K = 0) and the caller's own kernel must do.
bool cublas_gemm(const GemmProblem& problem);
void release_cublas();
#endif

}  // namespace ember::gpu
