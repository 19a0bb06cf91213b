// The loops kernels walk: the SDK's LoopGeometry (Note [Loop geometry] in
// ember/sdk/loop_geometry.hpp) over sdk::StridedLoop's coalesced dimensions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "../runtime_error.h"

namespace ember::gpu {

inline constexpr int kMaxLoopDims = 6;

template <int N>
using Loop = sdk::LoopGeometry<N, kMaxLoopDims>;

// The loop over tensors that share the first one's shape.
template <int N>
Loop<N> make_loop(const std::array<const DLTensor*, N>& tensors) {
  return sdk::StridedLoop(tensors.data(), N).template geometry<N, kMaxLoopDims>();
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
