#include "core/elementwise_layout.h"

#include <algorithm>
#include <array>
#include <utility>

#include "core/shape.h"

namespace ember {

// Note [Elementwise output layout]
// An elementwise op allocates its output in its inputs' memory order, as
// PyTorch's TensorIterator does: the dims are ordered innermost first by the
// inputs' strides, the first input that tells two dims apart deciding
// (a broadcast dim, stride 0, tells nothing; equal strides put the smaller
// dim inside), and the output is dense in that order; inputs that share one
// dense layout give the output their very strides. So `x.t() * 2`, `x.permute(...).exp()` or
// a sum of channels-last images stream through memory instead of
// transposing element by element, and the result keeps the layout its user
// gave, strides included. Contiguous inputs, the common case, give a
// contiguous output without this work. Traced graphs keep contiguous
// intermediates (their plans allocate by shape), with the same values.
DimVector elementwise_output_strides(const Tensor* inputs, int64_t num_inputs, IntArrayRef sizes) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  bool any_permuted = false;
  for (int64_t i = 0; i < num_inputs && !any_permuted; ++i) {
    any_permuted = !inputs[i].is_contiguous() && inputs[i].sizes() == sizes;
  }
  if (!any_permuted || rank < 2) return {};
  // Inputs of one dense layout (broadcasts aside) give it to the output,
  // size-1 dims included.
  const auto is_broadcast = [&](const Tensor& t) {
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (t.strides()[d] == 0 && sizes[d] > 1) return true;
    }
    return false;
  };
  const Tensor* dense = nullptr;
  bool one_layout = true;
  for (int64_t i = 0; i < num_inputs && one_layout; ++i) {
    if (inputs[i].sizes() != sizes || is_broadcast(inputs[i])) continue;
    if (dense == nullptr) dense = &inputs[i];
    one_layout = inputs[i].strides() == dense->strides();
  }
  if (dense != nullptr && one_layout && is_non_overlapping_and_dense(sizes, dense->strides())) {
    return dense->strides();
  }
  // Positive where `inner` belongs outside `outer`, negative where it is
  // rightly inside, 0 where no input tells.
  const auto compare = [&](int64_t inner, int64_t outer) {
    const size_t i = static_cast<size_t>(inner);
    const size_t o = static_cast<size_t>(outer);
    for (int64_t k = 0; k < num_inputs; ++k) {
      if (inputs[k].sizes() != sizes) continue;
      const int64_t inner_stride = inputs[k].strides()[i];
      const int64_t outer_stride = inputs[k].strides()[o];
      if (inner_stride == 0 || outer_stride == 0) continue;
      if (inner_stride != outer_stride) return inner_stride < outer_stride ? -1 : 1;
      if (sizes[i] > sizes[o]) return 1;
    }
    return 0;
  };
  // Innermost first. An insertion that passes over dims no input orders,
  // since the inputs need not order all dims consistently.
  std::array<int64_t, kMaxDims> order{};
  for (int64_t i = 0; i < rank; ++i) order[static_cast<size_t>(i)] = rank - 1 - i;
  bool reordered = false;
  for (int64_t i = 1; i < rank; ++i) {
    int64_t moving = i;
    for (int64_t k = i - 1; k >= 0; --k) {
      const int c = compare(order[static_cast<size_t>(k)], order[static_cast<size_t>(moving)]);
      if (c < 0) break;
      if (c > 0) {
        std::swap(order[static_cast<size_t>(k)], order[static_cast<size_t>(moving)]);
        moving = k;
        reordered = true;
      }
    }
  }
  if (!reordered) return {};
  DimVector strides(sizes.size());
  int64_t stride = 1;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = order[static_cast<size_t>(i)];
    strides[static_cast<size_t>(d)] = stride;
    stride *= std::max<int64_t>(sizes[static_cast<size_t>(d)], 1);
  }
  return strides;
}

}  // namespace ember
