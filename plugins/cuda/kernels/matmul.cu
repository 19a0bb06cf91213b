// Matrix products mm and bmm (ops.md "Matrix products"): cuBLAS where the
// build has it and the layouts suit, otherwise the tiled kernel below (the
// ROCm plugin's only path: Debian ships no rocBLAS).
#include "elementwise_ops.cuh"
#include "gemm.h"
#include "kernels.h"
#include "launch.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

// Note [Tiled GEMM]: a block of 256 threads computes a 64 x 64 tile of C,
// walking K in steps of 16 through shared memory; each thread owns a 4 x 4
// lattice of the tile (rows ty + 16i, columns tx + 16j), so neighbouring
// threads read neighbouring shared words. Operands may have any strides;
// reduced floats accumulate in float32, float64 in float64, integers in
// int64 (wrapping, as the CPU plugin's integer products do).
constexpr int kTile = 64;
constexpr int kDepth = 16;
constexpr int kPerThread = 4;

template <class T>
using gemm_acc_t =
    std::conditional_t<is_integer_v<T>, int64_t, std::conditional_t<std::is_same_v<T, double>, double, float>>;

template <class T>
__global__ void gemm_tiled(GemmProblem p) {
  using Acc = gemm_acc_t<T>;
  __shared__ Acc a_tile[kDepth][kTile];
  __shared__ Acc b_tile[kDepth][kTile];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t row0 = int64_t{blockIdx.y} * kTile, col0 = int64_t{blockIdx.x} * kTile;
  for (int64_t batch = blockIdx.z; batch < p.batches; batch += gridDim.z) {
    const T* a = static_cast<const T*>(p.a.data) + batch * p.a.batch_stride;
    const T* b = static_cast<const T*>(p.b.data) + batch * p.b.batch_stride;
    T* c = static_cast<T*>(p.c.data) + batch * p.c.batch_stride;
    Acc acc[kPerThread][kPerThread] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += kDepth) {
      for (int e = threadIdx.x; e < kTile * kDepth; e += blockDim.x) {
        const int row = e / kDepth, kk = e % kDepth;
        const int64_t m = row0 + row, k = k0 + kk;
        a_tile[kk][row] =
            (m < p.m && k < p.k) ? static_cast<Acc>(to_compute(a[m * p.a.row_stride + k * p.a.col_stride])) : Acc(0);
        const int kb = e / kTile, col = e % kTile;
        const int64_t n = col0 + col, kr = k0 + kb;
        b_tile[kb][col] =
            (kr < p.k && n < p.n) ? static_cast<Acc>(to_compute(b[kr * p.b.row_stride + n * p.b.col_stride])) : Acc(0);
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kDepth; ++kk) {
        Acc a_values[kPerThread], b_values[kPerThread];
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) {
          a_values[i] = a_tile[kk][ty + 16 * i];
          b_values[i] = b_tile[kk][tx + 16 * i];
        }
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) {
#pragma unroll
          for (int j = 0; j < kPerThread; ++j) acc[i][j] = ops::Add{}(acc[i][j], ops::Mul{}(a_values[i], b_values[j]));
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
#pragma unroll
      for (int j = 0; j < kPerThread; ++j) {
        const int64_t m = row0 + ty + 16 * i, n = col0 + tx + 16 * j;
        if (m < p.m && n < p.n) c[m * p.c.row_stride + n * p.c.col_stride] = convert<T>(acc[i][j]);
      }
    }
  }
}

// The matrix of the last two dims of t; a 2-d tensor is one batch.
Matrix matrix_of(const DLTensor& t) {
  const int64_t* s = t.strides + (t.ndim - 2);
  return Matrix{sdk::data_ptr(t), t.ndim == 3 ? t.strides[0] : 0, s[0], s[1]};
}

template <class>
struct MatmulKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    const DLTensor& a = call.inputs[0];
    const DLTensor& b = call.inputs[1];
    const DLTensor& c = call.outputs[0];
    GemmProblem p{};
    p.dtype = sdk::dtype_of(a);
    p.batches = c.ndim == 3 ? c.shape[0] : 1;
    p.m = c.shape[c.ndim - 2];
    p.n = c.shape[c.ndim - 1];
    p.k = a.shape[a.ndim - 1];
    p.a = matrix_of(a);
    p.b = matrix_of(b);
    p.c = matrix_of(c);
    p.device = call.device_index;
    p.stream = context.stream();
    if (p.batches == 0 || p.m == 0 || p.n == 0) return;
#if defined(EMBER_GPU_HAS_CUBLAS)
    if (cublas_gemm(p)) return;
#endif
    const dim3 grid(static_cast<unsigned>((p.n + kTile - 1) / kTile), static_cast<unsigned>((p.m + kTile - 1) / kTile),
                    static_cast<unsigned>(std::min<int64_t>(p.batches, 65535)));
    if (grid.y > 65535) {
      sdk::fail(EMBER_STATUS_UNIMPLEMENTED, std::string(call.op_name) + ": more than " +
                                                std::to_string(int64_t{65535} * kTile) + " rows");
    }
    gemm_tiled<T><<<grid, kBlockThreads, 0, context.stream()>>>(p);
    check_launch(call.op_name);
  }
};

}  // namespace

// The library handles are per device and reset per call to the call's
// stream, so the kernels are registered as not thread-safe: the core
// serialises them.
void register_matmul_kernels(const sdk::Registrar& r) {
  add_kernels<MatmulKernel, void>(r, "mm", sdk::NumericTypes{}, 0);
  add_kernels<MatmulKernel, void>(r, "bmm", sdk::NumericTypes{}, 0);
}

void release_matmul() {
#if defined(EMBER_GPU_HAS_CUBLAS)
  release_cublas();
#endif
}

}  // namespace ember::gpu
