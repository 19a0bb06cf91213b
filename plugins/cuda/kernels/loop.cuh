// Note [Loop geometry]: the host describes a walk over a shape in row-major
// order as coalesced dimensions (sdk::StridedLoop: size-1 dimensions
// dropped, neighbours merged where every operand allows it, never
// reordered) with each operand's byte strides, and a thread finds its
// operands' addresses from its linear element index. Element i of the walk
// is logical element i, which random numbers and index results rely on.
#pragma once

#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "../runtime_error.h"

namespace ember::gpu {

inline constexpr int kMaxLoopDims = 6;

template <int N>
struct Loop {
  int64_t numel;
  int32_t ndim;
  // Below 2^31 elements the index arithmetic runs in 32 bits, several
  // times cheaper than 64-bit division on GPUs.
  int32_t narrow;
  int64_t sizes[kMaxLoopDims];       // innermost first
  int64_t strides[kMaxLoopDims][N];  // bytes
  char* base[N];

  // Addresses of every operand's element at row-major position `linear`.
  // The outermost dimension needs no division: what is left of `linear`
  // there is the index itself.
  EMBER_GPU_HOST_DEVICE void locate(int64_t linear, char* (&p)[N]) const {
EMBER_GPU_UNROLL
    for (int k = 0; k < N; ++k) p[k] = base[k];
    if (narrow) {
      walk<uint32_t>(static_cast<uint32_t>(linear), p);
    } else {
      walk<int64_t>(linear, p);
    }
  }

  template <class I>
  EMBER_GPU_HOST_DEVICE void walk(I rest, char* (&p)[N]) const {
EMBER_GPU_UNROLL
    for (int d = 0; d < kMaxLoopDims; ++d) {
      int64_t index;
      if (d == ndim - 1) {
        index = static_cast<int64_t>(rest);
      } else {
        const I size = static_cast<I>(sizes[d]);
        const I next = rest / size;
        index = static_cast<int64_t>(rest - next * size);
        rest = next;
      }
EMBER_GPU_UNROLL
      for (int k = 0; k < N; ++k) p[k] += index * strides[d][k];
      if (d == ndim - 1) break;
    }
  }

  // Whether operand k walks its elements of `element_size` bytes densely
  // (or the walk has at most one element).
  bool dense(int k, int64_t element_size) const {
    return numel <= 1 || (ndim == 1 && strides[0][k] == element_size);
  }
  // Whether operand k reads one element throughout (a broadcast scalar).
  bool scalar(int k) const {
    if (numel <= 1) return true;
    for (int d = 0; d < ndim; ++d) {
      if (strides[d][k] != 0) return false;
    }
    return true;
  }
};

// The loop over tensors that share the first one's shape.
template <int N>
Loop<N> make_loop(const std::array<const DLTensor*, N>& tensors) {
  const sdk::StridedLoop walk(tensors.data(), N);
  if (walk.ndim() > kMaxLoopDims) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, std::string(device_type_name()) + ": a loop over " +
                                              std::to_string(walk.ndim()) +
                                              " dimensions that cannot be merged (at most " +
                                              std::to_string(kMaxLoopDims) + ")");
  }
  Loop<N> loop{};
  loop.numel = walk.numel();
  loop.ndim = walk.ndim();
  loop.narrow = walk.numel() <= INT32_MAX;
  for (int d = 0; d < walk.ndim(); ++d) {
    loop.sizes[d] = walk.size(d);
    for (int k = 0; k < N; ++k) loop.strides[d][k] = walk.strides(d)[k];
  }
  for (int k = 0; k < N; ++k) loop.base[k] = walk.base(k);
  return loop;
}

// A DLTensor over `t`'s memory with another shape and strides (in
// elements), which it borrows: they must outlive the view.
inline DLTensor reshaped(const DLTensor& t, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  DLTensor view = t;
  view.ndim = static_cast<int32_t>(shape.size());
  view.shape = const_cast<int64_t*>(shape.data());
  view.strides = const_cast<int64_t*>(strides.data());
  return view;
}

inline std::vector<int64_t> shape_of(const DLTensor& t) { return std::vector<int64_t>(t.shape, t.shape + t.ndim); }
inline std::vector<int64_t> strides_of(const DLTensor& t) {
  return std::vector<int64_t>(t.strides, t.strides + t.ndim);
}

}  // namespace ember::gpu
