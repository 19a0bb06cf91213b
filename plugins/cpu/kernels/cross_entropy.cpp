// Fused cross_entropy for [N, C] logits and int64 class targets (ops.md
// "Composite ops a backend may override"): per row, the log-sum-exp shifted
// by the row maximum (stable for large logits), then the loss
// (1 - s) * (lse - x[t]) + s * (lse - mean(x)) for label smoothing s.
#include "vector_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "lane_reduce.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// Elements a task should cover before rows are split across threads.
constexpr int64_t kCrossEntropyGrain = 16384;

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
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t label = label_of(r);
    if (label != ignore_index && (label < 0 || label >= classes)) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cross_entropy: target " + std::to_string(label) + " at row " +
                                                   std::to_string(r) + " is out of bounds for " +
                                                   std::to_string(classes) + " classes");
    }
  }
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
  int64_t counted = 0;
  for (int64_t r = 0; r < rows; ++r) {
    total += losses[static_cast<size_t>(r)];
    counted += label_of(r) != ignore_index;
  }
  // A mean over no counted rows is 0 / 0 = NaN, as in PyTorch.
  *out = sdk::convert<T>(reduction == kMean ? total / static_cast<double>(counted) : total);
}

}  // namespace

void register_cross_entropy_kernels(const sdk::Registrar& r) {
  r.add_each("cross_entropy", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&cross_entropy_kernel<typename decltype(tag)::type>>; });
}

}  // namespace ember::cpu
