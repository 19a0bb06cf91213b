// The emulated device's kernels, one file per op family, and what they share.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "../launch.h"

namespace emu {

namespace sdk = ember::sdk;

void register_elementwise_kernels(const sdk::Registrar& r);
void register_reduce_kernels(const sdk::Registrar& r);
void register_matmul_kernels(const sdk::Registrar& r);
void register_index_kernels(const sdk::Registrar& r);

// float16 and bfloat16 compute in float (sdk/docs/ops.md); others in themselves.
template <class T>
using Compute = std::conditional_t<sdk::is_reduced_float_v<T>, float, T>;

// Registers async_kernel<Body<T>> for every T of a type list.
template <template <class> class Body, class... Ts>
void add_each(const sdk::Registrar& r, const char* op, sdk::TypeList<Ts...> types) {
  r.add_each(op, types, [](auto tag) {
    using T = typename decltype(tag)::type;
    return &async_kernel<&Body<T>::run>;
  });
}

// Element `index` (a multi-index) of t, as a typed pointer.
template <class T>
T* element(const DLTensor& t, const int64_t* index) {
  int64_t offset = 0;
  for (int d = 0; d < t.ndim; ++d) offset += index[d] * t.strides[d];
  return reinterpret_cast<T*>(sdk::data_ptr(t)) + offset;
}

// Calls fn(index) for every multi-index of `shape` in row-major order.
template <class Fn>
void for_each_index(const int64_t* shape, int ndim, Fn&& fn) {
  int64_t total = 1;
  for (int d = 0; d < ndim; ++d) total *= shape[d];
  std::vector<int64_t> index(static_cast<size_t>(ndim), 0);
  for (int64_t n = 0; n < total; ++n) {
    fn(index.data());
    for (int d = ndim - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
  }
}

}  // namespace emu
