// mm and bmm: a plain triple loop over strided operands, accumulating in
// float (double for float64; wrapping uint64 for integers). A real device
// would call its BLAS here.
#include "kernels.h"

namespace emu {

namespace {

template <class T>
using ProductAcc = std::conditional_t<std::is_same_v<T, double>, double,
                                      std::conditional_t<sdk::is_floating_v<T>, float, uint64_t>>;

// out[b] = a[b] @ w[b] for operands with a leading batch dim, or without one.
template <class T>
struct MatMul {
  static void run(const ember_kernel_call& call) {
    const DLTensor& a = call.inputs[0];
    const DLTensor& w = call.inputs[1];
    const DLTensor& out = call.outputs[0];
    const bool batched = a.ndim == 3;
    const int o = batched ? 1 : 0;  // first matrix dim
    const int64_t batches = batched ? a.shape[0] : 1;
    const int64_t rows = a.shape[o], inner = a.shape[o + 1], cols = w.shape[o + 1];
    const T* pa = reinterpret_cast<const T*>(sdk::data_ptr(a));
    const T* pw = reinterpret_cast<const T*>(sdk::data_ptr(w));
    T* po = reinterpret_cast<T*>(sdk::data_ptr(out));
    for (int64_t b = 0; b < batches; ++b) {
      const T* ab = pa + (batched ? b * a.strides[0] : 0);
      const T* wb = pw + (batched ? b * w.strides[0] : 0);
      T* ob = po + (batched ? b * out.strides[0] : 0);
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          ProductAcc<T> acc = 0;
          for (int64_t k = 0; k < inner; ++k) {
            const auto x = static_cast<ProductAcc<T>>(sdk::Compute<T>(ab[i * a.strides[o] + k * a.strides[o + 1]]));
            const auto y = static_cast<ProductAcc<T>>(sdk::Compute<T>(wb[k * w.strides[o] + j * w.strides[o + 1]]));
            acc += x * y;
          }
          ob[i * out.strides[o] + j * out.strides[o + 1]] = T(static_cast<sdk::Compute<T>>(acc));
        }
      }
    }
  }
};

}  // namespace

void register_matmul_kernels(const sdk::Registrar& r) {
  sdk::add_each<MatMul, QueueOnStream>(r, "mm", sdk::NumericTypes{});
  sdk::add_each<MatMul, QueueOnStream>(r, "bmm", sdk::NumericTypes{});
}

}  // namespace emu
