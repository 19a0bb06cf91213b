// Derivatives of the view ops (Note [Dispatch steps]: views are catalogue
// ops whose kernel is the core's aliasing). A view's gradient is the
// incoming one laid back into its base's shape.
#include <algorithm>
#include <utility>
#include <vector>

#include "autograd/derivatives.h"
#include "autograd/record.h"
#include "ember/ops.h"

namespace ember::autograd {
namespace {

using dispatch::OpCall;
using Grads = std::vector<Tensor>;

// The gradient of taking `count` entries start, start + step, ... along dim
// (select: one entry, with the dim dropped). A contiguous run (step 1: the
// pieces of split and chunk, an RNN's gates and time steps) is the gradient
// between zeros, one cat that writes each element once; a strided one is
// scattered into zeros, which also reads an index per element.
BackwardFn indexing_view_backward(const OpCall& c, int64_t dim, int64_t start, int64_t step, int64_t count,
                                  bool keeps_dim) {
  const DimVector sizes = c.inputs[0].sizes();
  const DType dtype = c.inputs[0].dtype();
  return [sizes, dtype, dim, start, step, count, keeps_dim](const Grads& g, const Grads&) {
    const Tensor grad = keeps_dim ? g[0] : g[0].unsqueeze(dim);
    if (step == 1 && grad.dtype() == dtype) {
      std::vector<Tensor> pieces;
      const TensorOptions options(dtype, grad.device());
      DimVector zeros_sizes = sizes;
      if (start > 0) {
        zeros_sizes[dim] = start;
        pieces.push_back(zeros(zeros_sizes, options));
      }
      pieces.push_back(grad);
      if (const int64_t after = sizes[dim] - start - count; after > 0) {
        zeros_sizes[dim] = after;
        pieces.push_back(zeros(zeros_sizes, options));
      }
      return Grads{pieces.size() == 1 ? grad : cat(pieces, dim)};
    }
    const Tensor index = arange(start, start + count * step, step, DType::Int64).to(grad.device());
    return Grads{place_along(grad, sizes, dtype, dim, index)};
  };
}

}  // namespace

// view, squeeze and unsqueeze: the same elements in the base's shape.
BackwardFn d_view(const OpCall& c, std::vector<Tensor>&) {
  const DimVector sizes = c.inputs[0].sizes();
  return [sizes](const Grads& g, const Grads&) { return Grads{g[0].reshape(sizes)}; };
}

BackwardFn d_permute(const OpCall& c, std::vector<Tensor>&) {
  const IntArrayRef dims = c.attr_ints("permute", "dims");
  DimVector inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[dims[i]] = static_cast<int64_t>(i);
  return [inverse](const Grads& g, const Grads&) { return Grads{g[0].permute(inverse)}; };
}

BackwardFn d_transpose(const OpCall& c, std::vector<Tensor>&) {
  const int64_t a = c.attr_int("transpose", "dim0");
  const int64_t b = c.attr_int("transpose", "dim1");
  return [a, b](const Grads& g, const Grads&) { return Grads{g[0].transpose(a, b)}; };
}

BackwardFn d_expand(const OpCall& c, std::vector<Tensor>&) {
  const DimVector sizes = c.inputs[0].sizes();
  return [sizes](const Grads& g, const Grads&) { return Grads{sum_to(g[0], sizes)}; };
}

BackwardFn d_slice(const OpCall& c, std::vector<Tensor>&) {
  const int64_t start = c.attr_int("slice", "start");
  const int64_t end = c.attr_int("slice", "end");
  const int64_t step = c.attr_int("slice", "step");
  const int64_t count = end == start ? 0 : (end - start - 1) / step + 1;
  return indexing_view_backward(c, c.attr_int("slice", "dim"), start, step, count, true);
}

BackwardFn d_select(const OpCall& c, std::vector<Tensor>&) {
  return indexing_view_backward(c, c.attr_int("select", "dim"), c.attr_int("select", "index"), 1, 1, false);
}

// Whether two elements of a tensor of these sizes and strides may share an
// address: false when, taking the dims by increasing stride, each stride
// steps past every element the smaller ones reach.
bool may_overlap(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size), size > 1
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return false;
    if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // the largest offset the dims so far address
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return true;
    reach += stride * (size - 1);
  }
  return false;
}

// Base and view address one storage: the gradient is added into a flat image
// of that storage at the view's offsets (overlaps accumulate), and the base's
// elements are read back out of it. Where elements of the base share an
// address, each gets that address's gradient divided by how many do, as
// PyTorch's as_strided_backward gives: the base's own backward adds them
// back up, so the storage's gradient stays the one the view received.
BackwardFn d_as_strided(const OpCall& c, std::vector<Tensor>&) {
  const Tensor& base = c.inputs[0];
  const DimVector base_sizes = base.sizes();
  const DimVector base_strides = base.strides();
  const int64_t base_offset = base.storage_offset();
  const DimVector view_sizes = c.attr_ints("as_strided", "sizes");
  const DimVector view_strides = c.attr_ints("as_strided", "strides");
  const int64_t view_offset = c.attr_int("as_strided", "storage_offset");
  const int64_t storage_elements = static_cast<int64_t>(base.impl()->storage()->nbytes() / base.element_size());
  return [=](const Grads& g, const Grads&) {
    const TensorOptions index_options(DType::Int64, g[0].device());
    const Tensor positions = arange(storage_elements, index_options);
    const Tensor view_positions = positions.as_strided(view_sizes, view_strides, view_offset).reshape({-1});
    const TensorOptions grad_options(g[0].dtype(), g[0].device());
    const Tensor flat = scatter_add(zeros({storage_elements}, grad_options), 0, view_positions, g[0].reshape({-1}));
    Tensor per_address = flat;
    if (may_overlap(base_sizes, base_strides)) {
      const Tensor base_positions = positions.as_strided(base_sizes, base_strides, base_offset).reshape({-1});
      const Tensor sharing = scatter_add(zeros({storage_elements}, grad_options), 0, base_positions,
                                         ones({base_positions.numel()}, grad_options));
      per_address = flat / maximum(sharing, ones({1}, grad_options));
    }
    return Grads{per_address.as_strided(base_sizes, base_strides, base_offset).clone()};
  };
}

}  // namespace ember::autograd
