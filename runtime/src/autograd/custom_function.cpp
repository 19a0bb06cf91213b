#include <algorithm>

#include "autograd/node.h"
#include "autograd/record.h"
#include "ember/autograd.h"
#include "ember/error.h"

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

// Runs the user's backward; the context (and its saved tensors) lives here.
class CustomFunctionNode : public Node {
 public:
  CustomFunctionNode(std::shared_ptr<CustomFunction> fn, std::unique_ptr<FunctionContext> ctx,
                     std::vector<Edge> edges, uint32_t num_outputs)
      : Node(fn->name() + "Backward", std::move(edges), num_outputs), fn_(std::move(fn)), ctx_(std::move(ctx)) {}

  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    if (!ctx_) {
      throw_error(ErrorKind::Runtime, "Trying to backward through the graph a second time, at " + name() +
                                          ". Specify retain_graph=true if you need to backward through it again.");
    }
    std::vector<Tensor> result = fn_->backward(*ctx_, grads);
    if (result.size() != next_edges().size()) {
      throw_error(ErrorKind::Runtime, fn_->name() + ".backward returned " + std::to_string(result.size()) +
                                          " gradients, but the function has " +
                                          std::to_string(next_edges().size()) + " inputs");
    }
    return result;
  }

  void release_saved() override { ctx_.reset(); }
  // Set once the outputs are known: the context lists the non-differentiable ones.
  void set_context(std::unique_ptr<FunctionContext> ctx) { ctx_ = std::move(ctx); }

 private:
  std::shared_ptr<CustomFunction> fn_;
  std::unique_ptr<FunctionContext> ctx_;
};

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
  for (const Tensor& t : inputs) edges.push_back(t.defined() ? gradient_edge(t) : Edge{});
  auto node = std::make_shared<CustomFunctionNode>(fn, nullptr, std::move(edges),
                                                   static_cast<uint32_t>(outputs.size()));
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
  }
  node->set_context(std::move(ctx));
  return outputs;
}

}  // namespace ember::autograd
