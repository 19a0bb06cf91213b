// Fused layer_norm (ops.md "Composite ops a backend may override"): per row,
// one pass for the mean, one for the variance of the centred values (no
// cancellation as in E[x^2] - E[x]^2), one to write y = x_hat * w + b.
#include <algorithm>
#include <cmath>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

template <class T>
void layer_norm_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const int64_t normalized_ndim = sdk::attr_int(call, "normalized_ndim");
  const double eps = sdk::attr_float(call, "eps");
  int64_t cols = 1;
  for (int d = x.ndim - static_cast<int>(normalized_ndim); d < x.ndim; ++d) cols *= x.shape[d];
  const int64_t rows = cols == 0 ? 0 : sdk::numel(x) / cols;
  // The core hands over contiguous tensors.
  const T* src = reinterpret_cast<const T*>(sdk::data_ptr(x));
  const T* weight = reinterpret_cast<const T*>(sdk::data_ptr(call.inputs[1]));
  const T* bias = reinterpret_cast<const T*>(sdk::data_ptr(call.inputs[2]));
  T* dst = reinterpret_cast<T*>(sdk::data_ptr(call.outputs[0]));
  using Acc = sdk::Compute<T>;
  parallel_for(0, rows, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(cols, 1)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const T* in = src + r * cols;
                   T* out = dst + r * cols;
                   Acc total = 0;
                   for (int64_t i = 0; i < cols; ++i) total += sdk::to_compute(in[i]);
                   const Acc mean = total / static_cast<Acc>(cols);
                   Acc squares = 0;
                   for (int64_t i = 0; i < cols; ++i) {
                     const Acc d = sdk::to_compute(in[i]) - mean;
                     squares += d * d;
                   }
                   const Acc rstd = Acc(1) / std::sqrt(squares / static_cast<Acc>(cols) + static_cast<Acc>(eps));
                   for (int64_t i = 0; i < cols; ++i) {
                     out[i] = sdk::convert<T>((sdk::to_compute(in[i]) - mean) * rstd * sdk::to_compute(weight[i]) +
                                              sdk::to_compute(bias[i]));
                   }
                 }
               });
}

}  // namespace

void register_layer_norm_kernels(const sdk::Registrar& r) {
  r.add_each("layer_norm", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&layer_norm_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
