// Fused layer_norm and layer_norm_backward (ops.md "Composite ops a backend
// may override"): Note [Fused layer_norm backward]. Forward, per row,
// the mean, then the variance of the centred values (no cancellation as in
// E[x^2] - E[x]^2), then y = (x - mean) * rstd * w + b. The row is read from
// memory once: the second and third passes find it in L1 or L2. The sums are
// lane reductions (Note [Lane reductions]), the passes vector loops.
#include <algorithm>
#include <cmath>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "lane_reduce.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

// About 0.2 ns an element (Note [Grain sizes]).
constexpr int64_t kLayerNormGrain = grain_for(0.2);

template <class C>
struct RowMoments {
  C mean;
  C rstd;
};

// Always inlined, so that it runs on the ISA of the clone that calls it
// (Note [ISA clones]).
template <class T, class C>
inline __attribute__((always_inline)) RowMoments<C> moments_of(const T* x, int64_t n, C eps) {
  const auto load = [](const T& value) { return static_cast<C>(sdk::to_compute(value)); };
  const C mean = sum_of<C>(x, n) / static_cast<C>(n);
  const C squares = reduce_lanes(
      int64_t{0}, n, C(0), [](C a, C b) { return a + b; },
      [x, mean, load](int64_t i) {
        const C centred = load(x[i]) - mean;
        return centred * centred;
      });
  return {mean, C(1) / std::sqrt(squares / static_cast<C>(n) + eps)};
}

template <class T>
EMBER_CPU_ISA_CLONES void normalize_row(const T* x, const T* weight, const T* bias, T* out, int64_t n,
                                        VectorCompute<T> eps) {
  using C = VectorCompute<T>;
  const auto load = [](const T& value) { return static_cast<C>(sdk::to_compute(value)); };
  const auto [mean, rstd] = moments_of(x, n, eps);
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

// Note [Fused layer_norm backward]: with x_hat = (x - mean) * rstd and
// g = dy * weight, per row
//   dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat)),
// and over the rows dweight = sum(dy * x_hat), dbias = sum(dy). The moments
// are computed again from x (passes over a row that stays in L1 or L2, as
// in the forward). Rows go in blocks of a fixed size that fits in L2: dx row
// by row, then the block's dweight and dbias partial sums column by column
// from L2, so dy and x are read from memory once. The partials are added in
// block order at the end, so the result does not depend on the thread count.
constexpr int64_t kBackwardBlockElements = 64 * 1024;
// Partial sums beyond this many elements would outgrow the tensors
// themselves: fewer, taller blocks instead.
constexpr int64_t kPartialElements = 1 << 20;

// dx of one row; returns the row's moments for dweight's terms.
template <class T>
EMBER_CPU_ISA_CLONES RowMoments<VectorCompute<T>> layer_norm_backward_row(const T* dy, const T* x, const T* weight,
                                                                         T* dx, int64_t n, VectorCompute<T> eps) {
  using C = VectorCompute<T>;
  const auto load = [](const T& value) { return static_cast<C>(sdk::to_compute(value)); };
  const auto [mean, rstd] = moments_of(x, n, eps);
  const auto add = [](C a, C b) { return a + b; };
  const C g_mean =
      reduce_lanes(int64_t{0}, n, C(0), add, [dy, weight, load](int64_t i) { return load(dy[i]) * load(weight[i]); }) /
      static_cast<C>(n);
  const C g_x_hat_mean =
      reduce_lanes(int64_t{0}, n, C(0), add,
                   [dy, x, weight, load, mean = mean](int64_t i) {
                     return load(dy[i]) * load(weight[i]) * (load(x[i]) - mean);
                   }) *
      rstd / static_cast<C>(n);
  for (int64_t i = 0; i < n; ++i) {
    const C x_hat = (load(x[i]) - mean) * rstd;
    dx[i] = sdk::convert<T>(rstd * (load(dy[i]) * load(weight[i]) - g_mean - x_hat * g_x_hat_mean));
  }
  return {mean, rstd};
}

// A block's dweight and dbias terms, sum(dy * x_hat) and sum(dy) over its
// rows, for kColumns columns at a time: the sums stay in registers while the
// rows, just read for dx, come from L2.
constexpr int64_t kColumns = 64;

template <class T>
EMBER_CPU_ISA_CLONES void layer_norm_block_params(const T* dy, const T* x, const RowMoments<VectorCompute<T>>* moments,
                                                  int64_t rows, int64_t cols, VectorCompute<T>* dweight,
                                                  VectorCompute<T>* dbias) {
  using C = VectorCompute<T>;
  const auto load = [](const T& value) { return static_cast<C>(sdk::to_compute(value)); };
  for (int64_t first = 0; first < cols; first += kColumns) {
    const int64_t width = std::min(kColumns, cols - first);
    C weight_sums[kColumns] = {};
    C bias_sums[kColumns] = {};
    for (int64_t r = 0; r < rows; ++r) {
      const T* dy_row = dy + r * cols + first;
      const T* x_row = x + r * cols + first;
      const C mean = moments[r].mean;
      const C rstd = moments[r].rstd;
      for (int64_t j = 0; j < width; ++j) {
        const C grad = load(dy_row[j]);
        weight_sums[j] += grad * ((load(x_row[j]) - mean) * rstd);
        bias_sums[j] += grad;
      }
    }
    std::copy(weight_sums, weight_sums + width, dweight + first);
    std::copy(bias_sums, bias_sums + width, dbias + first);
  }
}

template <class T>
void layer_norm_backward_kernel(const ember_kernel_call& call) {
  using C = VectorCompute<T>;
  const DLTensor& x = call.inputs[1];
  const int64_t normalized_ndim = sdk::attr_int(call, "normalized_ndim");
  const auto eps = static_cast<C>(sdk::attr_float(call, "eps"));
  int64_t cols = 1;
  for (int d = x.ndim - static_cast<int>(normalized_ndim); d < x.ndim; ++d) cols *= x.shape[d];
  const int64_t rows = cols == 0 ? 0 : sdk::numel(x) / cols;
  // The core hands over contiguous tensors.
  const T* grad = reinterpret_cast<const T*>(sdk::data_ptr(call.inputs[0]));
  const T* src = reinterpret_cast<const T*>(sdk::data_ptr(x));
  const T* weight = reinterpret_cast<const T*>(sdk::data_ptr(call.inputs[2]));
  T* dx = reinterpret_cast<T*>(sdk::data_ptr(call.outputs[0]));
  T* dweight = reinterpret_cast<T*>(sdk::data_ptr(call.outputs[1]));
  T* dbias = reinterpret_cast<T*>(sdk::data_ptr(call.outputs[2]));
  if (cols == 0) return;
  const int64_t most_blocks = std::max<int64_t>(1, kPartialElements / (2 * cols));
  const int64_t block_rows =
      std::max({int64_t{1}, kBackwardBlockElements / cols, (rows + most_blocks - 1) / most_blocks});
  const int64_t blocks = (rows + block_rows - 1) / block_rows;
  // Block b's dweight partial at [2b * cols, (2b + 1) * cols), its dbias one after it.
  std::vector<C> partials(static_cast<size_t>(2 * blocks * cols));
  parallel_for(0, blocks, std::max<int64_t>(1, kLayerNormGrain / (block_rows * cols)), [&](int64_t begin, int64_t end) {
    std::vector<RowMoments<C>> moments(static_cast<size_t>(block_rows));
    for (int64_t b = begin; b < end; ++b) {
      const int64_t first = b * block_rows;
      const int64_t count = std::min(rows, first + block_rows) - first;
      for (int64_t r = 0; r < count; ++r) {
        const int64_t offset = (first + r) * cols;
        moments[static_cast<size_t>(r)] =
            layer_norm_backward_row(grad + offset, src + offset, weight, dx + offset, cols, eps);
      }
      C* dweight_partial = partials.data() + 2 * b * cols;
      layer_norm_block_params(grad + first * cols, src + first * cols, moments.data(), count, cols, dweight_partial,
                              dweight_partial + cols);
    }
  });
  const int64_t columns_grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(2 * blocks, 1));
  parallel_for(0, cols, columns_grain, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      C weight_total = 0;
      C bias_total = 0;
      for (int64_t b = 0; b < blocks; ++b) {
        weight_total += partials[static_cast<size_t>(2 * b * cols + c)];
        bias_total += partials[static_cast<size_t>((2 * b + 1) * cols + c)];
      }
      dweight[c] = sdk::convert<T>(weight_total);
      dbias[c] = sdk::convert<T>(bias_total);
    }
  });
}

}  // namespace

void register_layer_norm_kernels(const sdk::Registrar& r) {
  r.add_each("layer_norm", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&layer_norm_kernel<typename decltype(tag)::type>>; });
  r.add_each("layer_norm_backward", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&layer_norm_backward_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
