// The sort order of the catalogue's sort (sort.cu, Note [GPU sort]): NaN
// above every number, so last ascending and first descending. Compiled for
// both sides, so tests/test_device_functions.cu checks it on the host.
#pragma once

#include "elementwise_ops.cuh"

namespace ember::gpu {

// Whether a goes strictly before b.
template <class C>
EMBER_HOST_DEVICE bool goes_before(C a, C b, bool descending) {
  const bool a_nan = ops::is_nan(a), b_nan = ops::is_nan(b);
  if (descending) return (a_nan && !b_nan) || a > b;
  return (b_nan && !a_nan) || a < b;
}

}  // namespace ember::gpu
