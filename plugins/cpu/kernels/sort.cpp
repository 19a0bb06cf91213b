// sort (ops.md "Scans and sorting"): each line is copied out with its
// indices, stably sorted, and written back.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
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

// Note [Radix sort of integer lines]: integer and bool lines are sorted by
// their keys' bytes, least significant first, with a counting pass per
// byte that is not the same in every key (a line of values below 1024 takes
// two). Each pass keeps equal bytes in their order, so the sort is stable,
// as std::stable_sort is, and gives the same indices. The key is the value
// with its sign bit flipped, so that unsigned order is the values' order,
// and complemented for a descending sort.
constexpr int64_t kRadixSortLeast = 256;  // shorter lines take std::stable_sort

template <class T>
void radix_sort_line(const T* src, int64_t stride, int64_t n, bool descending, std::vector<uint64_t>& keys,
                     std::vector<int64_t>& order) {
  std::vector<uint64_t> next_keys(static_cast<size_t>(n));
  std::vector<int64_t> next_order(static_cast<size_t>(n));
  uint64_t varying = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t key = static_cast<uint64_t>(static_cast<int64_t>(src[i * stride]));
    if constexpr (std::is_signed_v<T>) key ^= uint64_t{1} << 63;
    keys[i] = descending ? ~key : key;
    order[i] = i;
    varying |= keys[i] ^ keys[0];
  }
  for (int shift = 0; shift < 64; shift += 8) {
    if (((varying >> shift) & 0xFF) == 0) continue;
    int64_t starts[257] = {};
    for (int64_t i = 0; i < n; ++i) ++starts[((keys[i] >> shift) & 0xFF) + 1];
    for (int b = 0; b < 256; ++b) starts[b + 1] += starts[b];
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = starts[(keys[i] >> shift) & 0xFF]++;
      next_keys[at] = keys[i];
      next_order[at] = order[i];
    }
    keys.swap(next_keys);
    order.swap(next_order);
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
    if constexpr (std::is_integral_v<T>) {
      if (n >= kRadixSortLeast) {
        std::vector<uint64_t> keys(static_cast<size_t>(n));
        std::vector<int64_t> order(static_cast<size_t>(n));
        radix_sort_line(src, x.strides[dim], n, descending, keys, order);
        T* value_out = reinterpret_cast<T*>(starts[1]);
        int64_t* index_out = reinterpret_cast<int64_t*>(starts[2]);
        for (int64_t i = 0; i < n; ++i) {
          value_out[i * values.strides[dim]] = src[order[i] * x.strides[dim]];
          index_out[i * indices.strides[dim]] = order[i];
        }
        return;
      }
    }
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
