#include <algorithm>

#include "autograd/node.h"
#include "autograd/record.h"
#include "core/shape.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {

FunctionContext::FunctionContext() = default;
FunctionContext::~FunctionContext() = default;

void FunctionContext::save_for_backward(const std::vector<Tensor>& tensors) {
  saved_.clear();
  for (const Tensor& t : tensors) saved_.emplace_back(t, name_);
}

std::vector<Tensor> FunctionContext::saved_tensors() const {
  std::vector<Tensor> out;
  for (const SavedTensor& s : saved_) out.push_back(s.unpack());
  return out;
}

void FunctionContext::mark_non_differentiable(const std::vector<Tensor>& outputs) {
  for (const Tensor& t : outputs) non_differentiable_.push_back(t.impl_ptr());
}

bool FunctionContext::needs_input_grad(size_t input) const {
  return input < needs_input_grad_.size() && needs_input_grad_[input];
}

namespace {

// What a gradient for one input must look like (PyTorch's InputMetadata).
struct InputMetadata {
  bool defined = false;
  DimVector sizes;
  DType dtype = DType::Float32;
  Device device;
};

}  // namespace

// Runs the user's backward; the context (and its saved tensors) lives here.
class CustomFunctionNode : public Node {
 public:
  CustomFunctionNode(std::shared_ptr<CustomFunction> fn, std::vector<Edge> edges, std::vector<InputMetadata> inputs,
                     uint32_t num_outputs)
      : Node(fn->node_name(), std::move(edges), num_outputs), fn_(std::move(fn)), inputs_(std::move(inputs)) {}

  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    if (!ctx_) {
      throw_error(ErrorKind::Runtime, "Trying to backward through the graph a second time, at " + name() +
                                          ". Specify retain_graph=true if you need to backward through it again.");
    }
    std::vector<Tensor> result = fn_->backward(*ctx_, grads);
    if (result.size() != next_edges().size()) {
      throw_error(ErrorKind::Runtime, "function " + name() + " returned an incorrect number of gradients (expected " +
                                          std::to_string(next_edges().size()) + ", got " +
                                          std::to_string(result.size()) + ")");
    }
    for (size_t i = 0; i < result.size(); ++i) validate_gradient(i, result[i]);
    return result;
  }

  void release_saved() override {
    ctx_.reset();
    fn_->release();
  }
  // Set once the outputs are known: the context lists the non-differentiable ones.
  void set_context(std::unique_ptr<FunctionContext> ctx) { ctx_ = std::move(ctx); }

 private:
  // PyTorch's validate_outputs: a gradient of a broadcastable shape is
  // summed down to the input's, another dtype is converted, anything else
  // is an error naming the function and the input.
  void validate_gradient(size_t index, Tensor& grad) const {
    if (!grad.defined() || !next_edges()[index].valid()) return;
    const InputMetadata& input = inputs_[index];
    const std::string where = "function " + name() + " returned an invalid gradient at index " + std::to_string(index);
    if (!(grad.sizes() == input.sizes)) {
      if (!broadcasts_to(input.sizes, grad.sizes())) {
        throw_error(ErrorKind::Runtime, where + " - got " + shape_str(grad.sizes()) +
                                            " but expected shape compatible with " + shape_str(input.sizes));
      }
      grad = sum_to(grad, input.sizes);
    }
    if (grad.device() != input.device) {
      throw_error(ErrorKind::Runtime,
                  where + " - expected device " + input.device.str() + " but got " + grad.device().str());
    }
    if (grad.dtype() != input.dtype) grad = grad.to(input.dtype);
  }

  std::shared_ptr<CustomFunction> fn_;
  std::vector<InputMetadata> inputs_;
  std::unique_ptr<FunctionContext> ctx_;

  friend std::shared_ptr<CustomFunction> custom_function_of(const Node& node);
};

std::shared_ptr<CustomFunction> custom_function_of(const Node& node) {
  const auto* custom = dynamic_cast<const CustomFunctionNode*>(&node);
  return custom == nullptr ? nullptr : custom->fn_;
}

std::vector<Tensor> apply_function(const std::shared_ptr<CustomFunction>& fn, const std::vector<Tensor>& inputs) {
  auto ctx = std::make_unique<FunctionContext>();
  ctx->name_ = fn->name();
  const bool record_it = any_requires_grad(inputs.data(), static_cast<int64_t>(inputs.size()));
  for (const Tensor& t : inputs) ctx->needs_input_grad_.push_back(record_it && t.defined() && t.requires_grad());
  std::vector<Tensor> outputs;
  {
    NoGradGuard no_grad;
    outputs = fn->forward(*ctx, inputs);
  }
  if (!record_it) return outputs;
  std::vector<Edge> edges;
  std::vector<InputMetadata> metadata;
  for (const Tensor& t : inputs) {
    edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
    metadata.push_back(t.defined() ? InputMetadata{true, t.sizes(), t.dtype(), t.device()} : InputMetadata{});
  }
  auto node =
      make_node<CustomFunctionNode>(fn, std::move(edges), std::move(metadata), static_cast<uint32_t>(outputs.size()));
  const auto& non_diff = ctx->non_differentiable_;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined() || !is_floating(out.dtype())) continue;
    if (std::find(non_diff.begin(), non_diff.end(), out.impl_ptr()) != non_diff.end()) continue;
    // An input returned as is becomes a new tensor over the same memory, so
    // the input's own history stays untouched.
    for (const Tensor& in : inputs) {
      if (in.defined() && in.impl() == out.impl()) out = out.detach();
    }
    AutogradMeta& meta = out.impl()->ensure_autograd_meta();
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(i);
    for (SavedTensor& s : ctx->saved_) {
      if (s.holds(out)) s.mark_output_of(node, static_cast<uint32_t>(i));
    }
  }
  for (SavedTensor& s : ctx->saved_) s.pack_if_hooked();
  node->set_context(std::move(ctx));
  return outputs;
}

}  // namespace ember::autograd
