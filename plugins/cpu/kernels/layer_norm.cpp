// Fused layer_norm (ops.md "Composite ops a backend may override"): per row,
// the mean, then the variance of the centred values (no cancellation as in
// E[x^2] - E[x]^2), then y = (x - mean) * rstd * w + b. The row is read from
// memory once: the second and third passes find it in L1 or L2. The sums are
// lane reductions (Note [Lane reductions]), the passes vector loops.
#include <algorithm>
#include <cmath>

#include "elementwise.h"
#include "kernels.h"
#include "lane_reduce.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

// Elements a task should cover before rows are split across threads.
constexpr int64_t kLayerNormGrain = 16384;

template <class T>
EMBER_CPU_ISA_CLONES void normalize_row(const T* x, const T* weight, const T* bias, T* out, int64_t n,
                                        VectorCompute<T> eps) {
  using C = VectorCompute<T>;
  const auto load = [](const T& value) { return static_cast<C>(sdk::to_compute(value)); };
  const C mean = sum_of<C>(x, n) / static_cast<C>(n);
  const C squares = reduce_lanes(
      int64_t{0}, n, C(0), [](C a, C b) { return a + b; },
      [x, mean, load](int64_t i) {
        const C centred = load(x[i]) - mean;
        return centred * centred;
      });
  const C rstd = C(1) / std::sqrt(squares / static_cast<C>(n) + eps);
  for (int64_t i = 0; i < n; ++i)
    out[i] = sdk::convert<T>((load(x[i]) - mean) * rstd * load(weight[i]) + load(bias[i]));
}

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
  const auto typed_eps = static_cast<VectorCompute<T>>(eps);
  parallel_for(0, rows, std::max<int64_t>(1, kLayerNormGrain / std::max<int64_t>(cols, 1)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   normalize_row(src + r * cols, weight, bias, dst + r * cols, cols, typed_eps);
                 }
               });
}

}  // namespace

void register_layer_norm_kernels(const sdk::Registrar& r) {
  r.add_each("layer_norm", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&layer_norm_kernel<typename decltype(tag)::type>>; });
}

}  // namespace ember::cpu
