// sort (ops.md "Scans and sorting"): each line is copied out with its
// indices, stably sorted, and written back.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "kernels.h"
#include "lines.h"

namespace ember::cpu {
namespace {

// About 7 ns an element (Note [Grain sizes]).
constexpr int64_t kSortGrain = grain_for(7);

// Ascending order with NaN above every number (PyTorch's order).
template <class C>
bool nan_last_less(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    return !std::isnan(a) && (std::isnan(b) || a < b);
  } else {
    return a < b;
  }
}

template <class T>
void sort_kernel(const ember_kernel_call& call) {
  using C = sdk::Compute<T>;
  const DLTensor& x = call.inputs[0];
  const DLTensor& values = call.outputs[0];
  const DLTensor& indices = call.outputs[1];
  const int64_t dim = sdk::attr_int(call, "dim");
  const bool descending = sdk::attr_bool(call, "descending");
  for_each_line(call, {&x, &values, &indices}, dim, kSortGrain, [&](char* const* starts) {
    const int64_t n = x.shape[dim];
    const T* src = reinterpret_cast<const T*>(starts[0]);
    std::vector<std::pair<C, int64_t>> line(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) line[i] = {sdk::to_compute(src[i * x.strides[dim]]), i};
    // Always stable: it satisfies both values of the `stable` attribute and
    // makes ties deterministic.
    if (descending) {
      std::stable_sort(line.begin(), line.end(),
                       [](const auto& a, const auto& b) { return nan_last_less(b.first, a.first); });
    } else {
      std::stable_sort(line.begin(), line.end(),
                       [](const auto& a, const auto& b) { return nan_last_less(a.first, b.first); });
    }
    T* value_out = reinterpret_cast<T*>(starts[1]);
    int64_t* index_out = reinterpret_cast<int64_t*>(starts[2]);
    for (int64_t i = 0; i < n; ++i) {
      value_out[i * values.strides[dim]] = sdk::convert<T>(line[i].first);
      index_out[i * indices.strides[dim]] = line[i].second;
    }
  });
}

}  // namespace

void register_sort_kernels(const sdk::Registrar& r) {
  r.add_each("sort", sdk::AllTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&sort_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
