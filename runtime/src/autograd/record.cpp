#include "autograd/record.h"

#include <cctype>

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

std::shared_ptr<Node> make_function_node(const std::string& name, const Tensor* inputs, int64_t num_inputs,
                                         int64_t num_outputs, const std::vector<Tensor>& saved, BackwardFn backward) {
  std::vector<Edge> edges;
  edges.reserve(static_cast<size_t>(num_inputs));
  for (int64_t i = 0; i < num_inputs; ++i) edges.push_back(inputs[i].defined() ? gradient_edge(inputs[i]) : Edge{});
  SavedTensors saved_tensors;
  saved_tensors.reserve(saved.size());
  for (const Tensor& t : saved) saved_tensors.emplace_back(t, name).pack_if_hooked();
  return make_node<FunctionNode>(name, std::move(edges), static_cast<uint32_t>(num_outputs), std::move(saved_tensors),
                                 std::move(backward));
}

void set_history(const std::shared_ptr<Node>& node, Tensor* outputs, int64_t num_outputs) {
  for (int64_t i = 0; i < num_outputs; ++i) {
    Tensor& out = outputs[i];
    if (!out.defined() || !is_floating(out.dtype())) continue;
    AutogradMeta& meta = out.impl()->ensure_autograd_meta();
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(i);
  }
}

const Tensor& name_history(const Tensor& out, const std::string& name) {
  AutogradMeta* meta = out.impl()->autograd_meta();
  if (meta != nullptr && meta->grad_fn != nullptr && meta->grad_fn.use_count() == 1) meta->grad_fn->rename(name);
  return out;
}

std::string backward_name(std::string_view op) {
  std::string name;
  name.reserve(op.size() + 9);
  bool upper = true;
  for (char c : op) {
    if (c == '_') {
      upper = true;
      continue;
    }
    name.push_back(upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c);
    upper = false;
  }
  return name + "Backward0";
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
  if (!is_grad_enabled()) return;
  if (target.requires_grad() && target.is_leaf()) {
    throw_error(ErrorKind::Runtime,
                op + ": a leaf Variable that requires grad is being used in an in-place operation.");
  }
  if (!target.impl()->is_view()) return;
  const Tensor base(target.impl()->view_base());
  if (!base.requires_grad()) return;
  if (base.is_leaf()) {
    throw_error(ErrorKind::Runtime,
                op + ": a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  if (target.grad_fn() == nullptr) {
    throw_error(ErrorKind::Runtime,
                op + ": a view was created in no_grad mode and is being modified inplace with grad mode enabled. "
                     "This is ambiguous and therefore not allowed: move both the view and the in-place write inside "
                     "the no_grad block (not to record the write) or both outside it (to record it).");
  }
}

}  // namespace ember::autograd
