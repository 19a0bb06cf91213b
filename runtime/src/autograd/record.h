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

// A node for one op call: an edge to each input and `backward` to run.
std::shared_ptr<Node> make_function_node(const std::string& name, const Tensor* inputs, int64_t num_inputs,
                                         int64_t num_outputs, const std::vector<Tensor>& saved, BackwardFn backward);

// Makes `node` the grad_fn of every floating output (integer and bool
// outputs are never differentiable).
void set_history(const std::shared_ptr<Node>& node, Tensor* outputs, int64_t num_outputs);

// Gives a composite op's result the node name PyTorch's own op shows
// (MseLossBackward0 rather than the MeanBackward0 its decomposition ends
// in), by renaming the node that made it when only this result holds that
// node, that is, when the op itself just made it. Returns out.
const Tensor& name_history(const Tensor& out, const std::string& name);

// PyTorch's name for the backward node of a catalogue op: "index_select"
// gives "IndexSelectBackward0".
std::string backward_name(std::string_view op);

// Sums `grad` down to `shape`, undoing broadcasting.
Tensor sum_to(const Tensor& grad, IntArrayRef shape);

// The gradient of selecting `index` (1-D, integer) along `dim` of a tensor
// of `base_sizes`: zeros with `grad` added at those positions (repeated
// indices accumulate).
Tensor place_along(const Tensor& grad, IntArrayRef base_sizes, DType dtype, int64_t dim, const Tensor& index);

// Rejects an in-place write into a leaf that requires grad, or into a view
// of one (PyTorch's rule).
void check_inplace(const Tensor& target, const std::string& op);

}  // namespace ember::autograd
