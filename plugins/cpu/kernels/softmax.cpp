// Fused softmax and log_softmax (ops.md "Composite ops a backend may
// override"): one pass for the maximum, one for the sum of exponentials, one
// to write, per line; the decomposition makes five tensors for the same.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels.h"
#include "lines.h"

namespace ember::cpu {
namespace {

template <class T, bool kLog>
void softmax_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  // Reduced precision computes in float32, float64 in double.
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t dim = sdk::attr_int(call, "dim");
  for_each_line(call, {&x, &out}, dim, [&](char* const* starts) {
    const int64_t n = x.shape[dim];
    const int64_t x_stride = x.strides[dim];
    const int64_t out_stride = out.strides[dim];
    const T* src = reinterpret_cast<const T*>(starts[0]);
    T* dst = reinterpret_cast<T*>(starts[1]);
    Acc max = -std::numeric_limits<Acc>::infinity();
    for (int64_t i = 0; i < n; ++i) max = std::max<Acc>(max, static_cast<Acc>(sdk::to_compute(src[i * x_stride])));
    // A line of -inf would give NaN from -inf - -inf; PyTorch's answer is NaN
    // too, so no special case is needed beyond keeping max finite for sums.
    Acc total = 0;
    for (int64_t i = 0; i < n; ++i) total += std::exp(static_cast<Acc>(sdk::to_compute(src[i * x_stride])) - max);
    const Acc log_total = std::log(total);
    for (int64_t i = 0; i < n; ++i) {
      const Acc shifted = static_cast<Acc>(sdk::to_compute(src[i * x_stride])) - max;
      dst[i * out_stride] = sdk::convert<T>(kLog ? shifted - log_total : std::exp(shifted) / total);
    }
  });
}

}  // namespace

void register_softmax_kernels(const sdk::Registrar& r) {
  r.add_each("softmax", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&softmax_kernel<typename decltype(tag)::type, false>>;
  });
  r.add_each("log_softmax", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&softmax_kernel<typename decltype(tag)::type, true>>;
  });
}

}  // namespace ember::cpu
