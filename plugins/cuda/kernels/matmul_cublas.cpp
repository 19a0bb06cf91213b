#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <cublas_v2.h>

#include <ember/ember_plugin.hpp>

#include "../runtime_error.h"
#include "gemm.h"

namespace ember::gpu {

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const ember_status_code code =
      status == CUBLAS_STATUS_ALLOC_FAILED ? EMBER_STATUS_OUT_OF_MEMORY : EMBER_STATUS_INTERNAL;
  sdk::fail(code, std::string("cuda: ") + what + " failed: " + cublasGetStatusName(status) + " (" +
                      cublasGetStatusString(status) + ")");
}

std::mutex g_handles_mutex;
std::map<int32_t, cublasHandle_t> g_handles;

cublasHandle_t handle_for(int32_t device) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  auto found = g_handles.find(device);
  if (found != g_handles.end()) return found->second;
  cublasHandle_t handle = nullptr;
  check_cublas(cublasCreate(&handle), "cublasCreate");
  g_handles.emplace(device, handle);
  return handle;
}

// How BLAS reads a [rows, cols] matrix: `transposed` when it is stored
// column by column, with `ld` between the starts of neighbouring rows (or
// columns). Sizes of 1 leave their stride free, so it is chosen to suit.
struct BlasLayout {
  bool column_major;
  int64_t ld;
};

std::optional<BlasLayout> layout_of(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= std::max<int64_t>(cols, 1))) {
    return BlasLayout{false, rows == 1 ? std::max<int64_t>(cols, 1) : row_stride};
  }
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= std::max<int64_t>(rows, 1))) {
    return BlasLayout{true, cols == 1 ? std::max<int64_t>(rows, 1) : col_stride};
  }
  return std::nullopt;
}

cudaDataType_t data_type_of(ember_dtype dtype) {
  switch (dtype) {
    case EMBER_DTYPE_FLOAT16: return CUDA_R_16F;
    case EMBER_DTYPE_BFLOAT16: return CUDA_R_16BF;
    case EMBER_DTYPE_FLOAT32: return CUDA_R_32F;
    case EMBER_DTYPE_FLOAT64: return CUDA_R_64F;
    default: sdk::fail(EMBER_STATUS_UNIMPLEMENTED, std::string("cuda: no cuBLAS product for ") + sdk::dtype_name(dtype));
  }
}

// float32 products may use TF32 tensor cores only when the user opts in
// (EMBER_CUDA_ALLOW_TF32=1), as torch.backends.cuda.matmul.allow_tf32.
bool tf32_allowed() {
  static const bool allowed = [] {
    const char* value = std::getenv("EMBER_CUDA_ALLOW_TF32");
    return value != nullptr && std::string(value) == "1";
  }();
  return allowed;
}

}  // namespace

// Row-major C = A @ B is column-major C^T = B^T @ A^T: cuBLAS's first
// operand is B and its second A, each transposed when stored column-major.
bool cublas_gemm(const GemmProblem& p) {
  const std::optional<BlasLayout> a = layout_of(p.m, p.k, p.a.row_stride, p.a.col_stride);
  const std::optional<BlasLayout> b = layout_of(p.k, p.n, p.b.row_stride, p.b.col_stride);
  const std::optional<BlasLayout> c = layout_of(p.m, p.n, p.c.row_stride, p.c.col_stride);
  constexpr int64_t kIntMax = 0x7fffffff;
  const bool floating = p.dtype == EMBER_DTYPE_FLOAT16 || p.dtype == EMBER_DTYPE_BFLOAT16 ||
                        p.dtype == EMBER_DTYPE_FLOAT32 || p.dtype == EMBER_DTYPE_FLOAT64;
  if (!floating || !a || !b || !c || c->column_major || p.k == 0 || p.m > kIntMax || p.n > kIntMax || p.k > kIntMax ||
      p.batches > kIntMax) {
    return false;
  }
  const cublasHandle_t handle = handle_for(p.device);
  check_cublas(cublasSetStream(handle, p.stream), "cublasSetStream");
  const cudaDataType_t type = data_type_of(p.dtype);
  const bool is_double = p.dtype == EMBER_DTYPE_FLOAT64;
  const cublasComputeType_t compute =
      is_double ? CUBLAS_COMPUTE_64F
                : (p.dtype == EMBER_DTYPE_FLOAT32 && tf32_allowed() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  const double alpha_d = 1.0, beta_d = 0.0;
  const float alpha_f = 1.0f, beta_f = 0.0f;
  const void* alpha = is_double ? static_cast<const void*>(&alpha_d) : static_cast<const void*>(&alpha_f);
  const void* beta = is_double ? static_cast<const void*>(&beta_d) : static_cast<const void*>(&beta_f);
  check_cublas(
      cublasGemmStridedBatchedEx(handle, b->column_major ? CUBLAS_OP_T : CUBLAS_OP_N,
                                 a->column_major ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(p.n),
                                 static_cast<int>(p.m), static_cast<int>(p.k), alpha, p.b.data, type,
                                 static_cast<int>(b->ld), p.b.batch_stride, p.a.data, type, static_cast<int>(a->ld),
                                 p.a.batch_stride, beta, p.c.data, type, static_cast<int>(c->ld), p.c.batch_stride,
                                 static_cast<int>(p.batches), compute, CUBLAS_GEMM_DEFAULT),
      "cublasGemmStridedBatchedEx");
  return true;
}

void release_cublas() {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  for (auto& [device, handle] : g_handles) (void)cublasDestroy(handle);
  g_handles.clear();
}

}  // namespace ember::gpu
