// Fused cross_entropy and cross_entropy_backward for [N, C] logits and int64
// class targets (ops.md "Composite ops a backend may override"): Note
// [Fused cross_entropy backward]. Forward, per row, the log-sum-exp shifted
// by the row maximum (stable for large logits), then the loss
// (1 - s) * (lse - x[t]) + s * (lse - mean(x)) for label smoothing s.
#include "vector_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "lane_reduce.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// About 0.4 ns an element (Note [Grain sizes]).
constexpr int64_t kCrossEntropyGrain = grain_for(0.4);

// The parts of a row's loss relative to its maximum: everything is computed
// shifted, since x[t] - lse would lose the small part of lse to rounding
// when logits are large.
template <class Acc>
struct RowTerms {
  Acc max;
  Acc log_exps;       // log(sum(exp(x - max)))
  Acc shifted_total;  // sum(x - max), for label smoothing
};

// A contiguous row: lane reductions and vector loops (Note [Lane
// reductions], Note [Vector math]).
template <class T, class Acc>
EMBER_CPU_ISA_CLONES RowTerms<Acc> contiguous_row_terms(const T* row, int64_t classes, bool smoothing) {
  const auto load = [](const T& value) { return static_cast<Acc>(sdk::to_compute(value)); };
  const Acc max = max_of<Acc>(row, classes);
  constexpr int64_t kStage = 1024;
  Acc stage[kStage];
  Acc exps = 0;
  for (int64_t start = 0; start < classes; start += kStage) {
    const int64_t m = std::min(kStage, classes - start);
    for (int64_t i = 0; i < m; ++i) stage[i] = std::exp(load(row[start + i]) - max);
    exps += sum_of<Acc>(stage, m);
  }
  const Acc shifted_total = smoothing ? reduce_lanes(
                                            int64_t{0}, classes, Acc(0), [](Acc a, Acc b) { return a + b; },
                                            [row, max, load](int64_t i) { return load(row[i]) - max; })
                                      : Acc(0);
  return {max, std::log(exps), shifted_total};
}

template <class T, class Acc>
RowTerms<Acc> strided_row_terms(const T* row, int64_t classes, int64_t col_stride) {
  const auto load = [&](int64_t c) { return static_cast<Acc>(sdk::to_compute(row[c * col_stride])); };
  Acc max = -std::numeric_limits<Acc>::infinity();
  for (int64_t c = 0; c < classes; ++c) max = std::max(max, load(c));
  Acc exps = 0, shifted_total = 0;
  for (int64_t c = 0; c < classes; ++c) {
    exps += std::exp(load(c) - max);
    shifted_total += load(c) - max;
  }
  return {max, std::log(exps), shifted_total};
}

// (1 - s) * (lse - x[t]) + s * (lse - mean(x)), with lse and x relative to
// the row maximum.
template <class T, class Acc>
Acc row_loss(const T* row, int64_t classes, int64_t col_stride, int64_t label, double smoothing) {
  const RowTerms<Acc> terms = col_stride == 1 ? contiguous_row_terms<T, Acc>(row, classes, smoothing != 0)
                                              : strided_row_terms<T, Acc>(row, classes, col_stride);
  const Acc nll = terms.log_exps - (static_cast<Acc>(sdk::to_compute(row[label * col_stride])) - terms.max);
  const Acc smooth = terms.log_exps - terms.shifted_total / static_cast<Acc>(classes);
  return static_cast<Acc>(1 - smoothing) * nll + static_cast<Acc>(smoothing) * smooth;
}

// Every target is a class or ignore_index; counts the rows not ignored.
int64_t check_targets(const ember_kernel_call& call, const DLTensor& target, int64_t classes, int64_t ignore_index) {
  const int64_t* t = reinterpret_cast<const int64_t*>(sdk::data_ptr(target));
  int64_t counted = 0;
  for (int64_t r = 0; r < target.shape[0]; ++r) {
    const int64_t label = t[r * target.strides[0]];
    if (label == ignore_index) continue;
    if (label < 0 || label >= classes) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(call.op_name) + ": target " + std::to_string(label) +
                                                   " at row " + std::to_string(r) + " is out of bounds for " +
                                                   std::to_string(classes) + " classes");
    }
    ++counted;
  }
  return counted;
}

template <class T>
void cross_entropy_kernel(const ember_kernel_call& call) {
  const DLTensor& logits = call.inputs[0];
  const DLTensor& target = call.inputs[1];
  const int64_t ignore_index = sdk::attr_int(call, "ignore_index");
  const int64_t reduction = sdk::attr_int(call, "reduction");
  const double smoothing = sdk::attr_float(call, "label_smoothing");
  const int64_t rows = logits.shape[0], classes = logits.shape[1];
  const T* x = reinterpret_cast<const T*>(sdk::data_ptr(logits));
  const int64_t* t = reinterpret_cast<const int64_t*>(sdk::data_ptr(target));
  auto label_of = [&](int64_t r) { return t[r * target.strides[0]]; };
  const int64_t counted = check_targets(call, target, classes, ignore_index);
  using Acc = VectorCompute<T>;
  std::vector<Acc> losses(static_cast<size_t>(rows));
  parallel_for(0, rows, std::max<int64_t>(1, kCrossEntropyGrain / std::max<int64_t>(classes, 1)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t label = label_of(r);
                   losses[static_cast<size_t>(r)] =
                       label == ignore_index
                           ? Acc(0)
                           : row_loss<T, Acc>(x + r * logits.strides[0], classes, logits.strides[1], label, smoothing);
                 }
               });
  T* out = reinterpret_cast<T*>(sdk::data_ptr(call.outputs[0]));
  if (reduction == kNone) {
    for (int64_t r = 0; r < rows; ++r) {
      out[r * call.outputs[0].strides[0]] = sdk::convert<T>(losses[static_cast<size_t>(r)]);
    }
    return;
  }
  double total = 0;
  for (const Acc loss : losses) total += loss;
  // A mean over no counted rows is 0 / 0 = NaN, as in PyTorch.
  *out = sdk::convert<T>(reduction == kMean ? total / static_cast<double>(counted) : total);
}

// Note [Fused cross_entropy backward]: the gradient of row r's loss is
// scale_r * (softmax(x_r) - q_r), q_r the smoothed one-hot target
// (1 - s) * onehot(t) + s / C, and scale_r the loss gradient of the row
// (divided by the rows not ignored for the mean), 0 for an ignored row. A
// contiguous float32 or float64 row keeps its exponentials in dx between
// passes, so the logits are read from memory once and dx written once.
template <class T>
EMBER_CPU_ISA_CLONES void cross_entropy_backward_row(const T* x, T* dx, int64_t classes, int64_t label,
                                                     VectorCompute<T> scale, VectorCompute<T> smoothing) {
  using C = VectorCompute<T>;
  const auto load = [](const T& value) { return static_cast<C>(sdk::to_compute(value)); };
  const C max = max_of<C>(x, classes);
  const C spread = smoothing / static_cast<C>(classes);
  if constexpr (std::is_same_v<T, C>) {
    for (int64_t c = 0; c < classes; ++c) dx[c] = std::exp(x[c] - max);
    const C factor = scale / sum_of<C>(dx, classes);
    const C offset = scale * spread;
    for (int64_t c = 0; c < classes; ++c) dx[c] = dx[c] * factor - offset;
  } else {
    C total = 0;
    for (int64_t c = 0; c < classes; ++c) total += std::exp(load(x[c]) - max);
    const C factor = scale / total;
    for (int64_t c = 0; c < classes; ++c) dx[c] = sdk::convert<T>(std::exp(load(x[c]) - max) * factor - scale * spread);
  }
  dx[label] = sdk::convert<T>(load(dx[label]) - scale * (C(1) - smoothing));
}

template <class T>
void cross_entropy_backward_kernel(const ember_kernel_call& call) {
  using C = VectorCompute<T>;
  const DLTensor& loss_grad = call.inputs[0];
  const DLTensor& logits = call.inputs[1];
  const DLTensor& target = call.inputs[2];
  const int64_t ignore_index = sdk::attr_int(call, "ignore_index");
  const int64_t reduction = sdk::attr_int(call, "reduction");
  const auto smoothing = static_cast<C>(sdk::attr_float(call, "label_smoothing"));
  const int64_t rows = logits.shape[0], classes = logits.shape[1];
  const int64_t counted = check_targets(call, target, classes, ignore_index);
  // The core hands over contiguous logits and a contiguous gradient: one
  // value per row for reduction "none", else a scalar.
  const T* x = reinterpret_cast<const T*>(sdk::data_ptr(logits));
  const T* g = reinterpret_cast<const T*>(sdk::data_ptr(loss_grad));
  const int64_t* t = reinterpret_cast<const int64_t*>(sdk::data_ptr(target));
  T* dx = reinterpret_cast<T*>(sdk::data_ptr(call.outputs[0]));
  const C shared_scale = reduction == kNone ? C(0)
                         : reduction == kMean ? static_cast<C>(sdk::to_compute(*g)) / static_cast<C>(counted)
                                              : static_cast<C>(sdk::to_compute(*g));
  parallel_for(0, rows, std::max<int64_t>(1, kCrossEntropyGrain / std::max<int64_t>(classes, 1)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t r = begin; r < end; ++r) {
                   const int64_t label = t[r * target.strides[0]];
                   T* dx_row = dx + r * classes;
                   if (label == ignore_index) {
                     std::fill(dx_row, dx_row + classes, sdk::convert<T>(C(0)));
                     continue;
                   }
                   const C scale = reduction == kNone ? static_cast<C>(sdk::to_compute(g[r])) : shared_scale;
                   cross_entropy_backward_row(x + r * classes, dx_row, classes, label, scale, smoothing);
                 }
               });
}

}  // namespace

void register_cross_entropy_kernels(const sdk::Registrar& r) {
  r.add_each("cross_entropy", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&cross_entropy_kernel<typename decltype(tag)::type>>; });
  r.add_each("cross_entropy_backward", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&cross_entropy_backward_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
