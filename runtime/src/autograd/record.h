#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "autograd/node.h"

namespace ember::autograd {

// True when gradient recording is on and some input requires a gradient.
bool any_requires_grad(const Tensor* inputs, int64_t count);
inline bool any_requires_grad(std::initializer_list<Tensor> inputs) {
  return any_requires_grad(inputs.begin(), static_cast<int64_t>(inputs.size()));
}

// Records one op: a node with an edge to each input and `backward` to run,
// made the grad_fn of every floating output (integer and bool outputs are
// never differentiable). Call only when any_requires_grad() is true.
void record(const std::string& name, const Tensor* inputs, int64_t num_inputs, Tensor* outputs, int64_t num_outputs,
            const std::vector<Tensor>& saved, BackwardFn backward);

// For view ops and conversions computed outside the dispatcher: records
// `out = f(in)` when needed and returns out.
Tensor record_unary(const std::string& name, const Tensor& in, Tensor out, BackwardFn backward,
                    const std::vector<Tensor>& saved = {});

// Sums `grad` down to `shape`, undoing broadcasting.
Tensor sum_to(const Tensor& grad, IntArrayRef shape);

// The gradient of selecting `index` (1-D, integer) along `dim` of a tensor
// of `base_sizes`: zeros with `grad` added at those positions (repeated
// indices accumulate).
Tensor place_along(const Tensor& grad, IntArrayRef base_sizes, DType dtype, int64_t dim, const Tensor& index);

// Rejects an in-place write into a leaf that requires grad (PyTorch's rule).
void check_inplace(const Tensor& target, const std::string& op);

}  // namespace ember::autograd
