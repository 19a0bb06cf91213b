#pragma once

#include <ember/ember.h>

namespace ember::testing {

// 0, 1, 2, ... as float32 in `shape`: every element tells where it came from.
inline Tensor iota(IntArrayRef shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return arange(n, DType::Float32).view(shape);
}

}  // namespace ember::testing
