// Iteration over the lines of a tensor along one dimension, for ops that
// need a whole line at once (scans, sorting).
#ifndef EMBER_PLUGINS_CPU_KERNELS_LINES_H_
#define EMBER_PLUGINS_CPU_KERNELS_LINES_H_

#include <algorithm>
#include <string>

#include "elementwise.h"

namespace ember::cpu {

// Calls fn(starts) once per line along `dim` of same-shape tensors, where
// starts[i] is the line's first byte in tensors[i]; lines run in parallel,
// up to `grain` elements of lines on the calling thread (Note [Grain sizes]).
template <class Fn>
void for_each_line(const ember_kernel_call& call, std::initializer_list<const DLTensor*> tensors, int64_t dim,
                   int64_t grain, const Fn& fn) {
  constexpr int kMaxDims = sdk::StridedLoop::kMaxDims;
  constexpr int kMaxOperands = sdk::StridedLoop::kMaxOperands;
  const DLTensor& first = **tensors.begin();
  if (dim < 0 || dim >= first.ndim || first.ndim > kMaxDims || tensors.size() > kMaxOperands) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(call.op_name) + ": dim " + std::to_string(dim) +
                                                 " out of range for a tensor of rank " + std::to_string(first.ndim));
  }
  // The same tensors with `dim` collapsed to 1: one element per line.
  int64_t shape[kMaxDims];
  std::copy(first.shape, first.shape + first.ndim, shape);
  shape[dim] = 1;
  DLTensor views[kMaxOperands];
  const DLTensor* view_ptrs[kMaxOperands];
  int count = 0;
  for (const DLTensor* t : tensors) {
    views[count] = *t;
    views[count].shape = shape;
    view_ptrs[count] = &views[count];
    ++count;
  }
  const sdk::StridedLoop loop(view_ptrs, count);
  const int64_t lines_grain = std::max<int64_t>(1, grain / std::max<int64_t>(first.shape[dim], 1));
  parallel_for(0, loop.numel(), lines_grain, [&](int64_t begin, int64_t end) {
    loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      char* starts[kMaxOperands];
      for (int64_t e = 0; e < n; ++e) {
        for (int op = 0; op < count; ++op) starts[op] = ptrs[op] + e * strides[op];
        fn(static_cast<char* const*>(starts));
      }
    });
  });
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_LINES_H_
