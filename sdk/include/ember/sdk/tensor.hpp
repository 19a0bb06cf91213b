// tensor.hpp -- reading a DLTensor: its first element, element count,
// contiguity, an element by multi-index and a walk over every multi-index.
#ifndef EMBER_SDK_TENSOR_HPP_
#define EMBER_SDK_TENSOR_HPP_

#include <ember/ember_plugin.h>

#include <cstdint>
#include <vector>

namespace ember::sdk {

// First element of a tensor, byte_offset applied.
inline char* data_ptr(const DLTensor& t) { return static_cast<char*>(t.data) + t.byte_offset; }

inline int64_t numel(const DLTensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

// Row-major contiguous, ignoring the strides of size-1 dimensions.
inline bool is_contiguous(const DLTensor& t) {
  int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

// Element `index` (one entry per dimension) of t, as a typed pointer.
template <class T>
T* element(const DLTensor& t, const int64_t* index) {
  int64_t offset = 0;
  for (int d = 0; d < t.ndim; ++d) offset += index[d] * t.strides[d];
  return reinterpret_cast<T*>(data_ptr(t)) + offset;
}

// Calls fn(index) for every multi-index of `shape` in row-major order; a
// 0-d shape has one (empty) index, a shape with a 0 has none.
template <class Fn>
void for_each_index(const int64_t* shape, int ndim, Fn&& fn) {
  int64_t total = 1;
  for (int d = 0; d < ndim; ++d) total *= shape[d];
  std::vector<int64_t> index(static_cast<size_t>(ndim), 0);
  for (int64_t n = 0; n < total; ++n) {
    fn(static_cast<const int64_t*>(index.data()));
    for (int d = ndim - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
  }
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_TENSOR_HPP_
