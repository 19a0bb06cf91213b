#include "autograd/record.h"

#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {

bool any_requires_grad(const Tensor* inputs, int64_t count) {
  if (!is_grad_enabled()) return false;
  for (int64_t i = 0; i < count; ++i) {
    if (inputs[i].defined() && inputs[i].requires_grad()) return true;
  }
  return false;
}

void record(const std::string& name, const Tensor* inputs, int64_t num_inputs, Tensor* outputs, int64_t num_outputs,
            const std::vector<Tensor>& saved, BackwardFn backward) {
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(num_inputs));
  for (int64_t i = 0; i < num_inputs; ++i) edges.push_back(gradient_edge(inputs[i]));
  SavedTensors saved_tensors;
  saved_tensors.reserve(saved.size());
  for (const Tensor& t : saved) saved_tensors.emplace_back(t, name);
  auto node = std::make_shared<FunctionNode>(name, std::move(edges), static_cast<uint32_t>(num_outputs),
                                             std::move(saved_tensors), std::move(backward));
  for (int64_t i = 0; i < num_outputs; ++i) {
    Tensor& out = outputs[i];
    if (!out.defined() || !is_floating(out.dtype())) continue;
    AutogradMeta& meta = out.impl()->ensure_autograd_meta();
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(i);
  }
}

Tensor record_unary(const std::string& name, const Tensor& in, Tensor out, BackwardFn backward,
                    const std::vector<Tensor>& saved) {
  if (any_requires_grad({in})) record(name, &in, 1, &out, 1, saved, std::move(backward));
  return out;
}

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  if (grad.sizes() == DimVector(shape)) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (shape[d - lead] == 1 && grad.sizes()[d] != 1)) dims.push_back(d);
  }
  Tensor reduced = dims.empty() ? grad : sum(grad, dims, true);
  return reduced.reshape(shape);
}

Tensor place_along(const Tensor& grad, IntArrayRef base_sizes, DType dtype, int64_t dim, const Tensor& index) {
  DimVector index_shape(grad.sizes().size(), 1);
  index_shape[dim] = index.numel();
  const Tensor laid = index.to(DType::Int64).reshape(index_shape).expand(grad.sizes());
  return scatter_add(zeros(base_sizes, TensorOptions(dtype, grad.device())), dim, laid, grad);
}

void check_inplace(const Tensor& target, const std::string& op) {
  if (is_grad_enabled() && target.requires_grad() && target.is_leaf()) {
    throw_error(ErrorKind::Runtime, op + ": a leaf Variable that requires grad is being used in an in-place operation.");
  }
}

}  // namespace ember::autograd
