// Compiled training: a forward plan and a backward plan joined by one
// autograd node (Note [Compiled training]).
#include "compile/training.h"

#include "autograd/record.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::compile {
namespace {

std::vector<Tensor> run_backward(const BackwardPart& part, const std::vector<Tensor>& grads,
                                 const std::vector<Tensor>& saved) {
  const Graph& graph = part.plan->graph();
  const size_t num_saved = saved.size();
  std::vector<Tensor> inputs(saved.begin(), saved.end());
  inputs.resize(graph.inputs.size());
  for (size_t i = 0; i < part.tangent_of_output.size(); ++i) {
    const int t = part.tangent_of_output[i];
    if (t < 0) continue;
    const size_t slot = num_saved + static_cast<size_t>(t);
    const Value& meta = graph.values[static_cast<size_t>(graph.inputs[slot])];
    const Tensor& grad = i < grads.size() ? grads[i] : Tensor();
    // Tangents were traced contiguous; an output nobody differentiated
    // contributes zeros.
    inputs[slot] = grad.defined() ? grad.contiguous() : zeros(meta.sizes, TensorOptions(meta.dtype, meta.device));
  }
  std::vector<Tensor> gradients = part.plan->run(inputs);
  std::vector<Tensor> per_primal(part.gradient_of_primal.size());
  for (size_t p = 0; p < per_primal.size(); ++p) {
    const int g = part.gradient_of_primal[p];
    if (g >= 0) per_primal[p] = gradients[static_cast<size_t>(g)];
  }
  return per_primal;
}

}  // namespace

TrainingPlan::TrainingPlan(const JointGraph& joint, const PlanOptions& options)
    : partition_(compile::partition(joint)),
      num_outputs_(joint.num_forward_outputs - static_cast<int>(joint.graph.input_updates.size())) {
  forward_ = std::make_shared<const Plan>(partition_.forward, options);
  backward_ = std::make_shared<const BackwardPart>(BackwardPart{
      std::make_shared<const Plan>(partition_.backward, options), joint.tangent_of_output, joint.gradient_of_primal});
  num_primals_ = static_cast<int>(partition_.forward.inputs.size());
  primal_requires_grad_.resize(static_cast<size_t>(num_primals_), false);
  for (size_t p = 0; p < joint.gradient_of_primal.size(); ++p) {
    primal_requires_grad_[p] = joint.gradient_of_primal[p] >= 0;
  }
}

std::vector<Tensor> TrainingPlan::run(std::span<const Tensor> inputs, EagerBackward eager_backward) const {
  if (static_cast<int>(inputs.size()) != num_primals_) {
    throw_error(ErrorKind::Runtime, "compile: a training plan for " + std::to_string(num_primals_) +
                                        " inputs was given " + std::to_string(inputs.size()));
  }
  for (int p = 0; p < num_primals_; ++p) {
    if (inputs[static_cast<size_t>(p)].requires_grad() && !primal_requires_grad_[static_cast<size_t>(p)]) {
      throw StaleTrace("input " + std::to_string(p) +
                       " of the compiled graph requires grad now and did not when it was traced");
    }
  }
  std::vector<Tensor> results;
  {
    autograd::NoGradGuard no_grad;
    results = forward_->run(inputs);
  }
  std::vector<Tensor> outputs(results.begin(), results.begin() + num_outputs_);
  if (!autograd::is_grad_enabled()) return outputs;
  std::vector<Tensor> saved;
  saved.reserve(static_cast<size_t>(partition_.num_saved_values) + partition_.saved_primals.size());
  // Saved values keep their data, not their history: the node reads them
  // only as the backward plan's inputs, and an output the node saves must
  // not own the node through its grad_fn.
  for (size_t i = static_cast<size_t>(num_outputs_); i < results.size(); ++i) saved.push_back(results[i].detach());
  for (int p : partition_.saved_primals) saved.push_back(inputs[static_cast<size_t>(p)].detach());

  std::vector<Tensor> differentiable(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (backward_->tangent_of_output[i] >= 0) differentiable[i] = outputs[i];
  }
  auto node = autograd::make_function_node(
      "CompiledFunctionBackward", inputs.data(), num_primals_, num_outputs_, saved,
      [part = backward_, eager_backward = std::move(eager_backward)](const std::vector<Tensor>& grads,
                                                                     const std::vector<Tensor>& saved_values) {
        if (autograd::is_grad_enabled()) {
          // create_graph=True: the backward itself must be differentiable,
          // which the eager history gives and the compiled plan does not.
          if (!eager_backward) {
            throw_error(ErrorKind::Runtime,
                        "compile: create_graph=True through a compiled function needs its eager form");
          }
          return eager_backward(grads);
        }
        return run_backward(*part, grads, saved_values);
      });
  autograd::set_history(node, differentiable.data(), static_cast<int64_t>(differentiable.size()));
  return outputs;
}

}  // namespace ember::compile
