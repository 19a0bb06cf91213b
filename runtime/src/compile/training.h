#pragma once

#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "compile/partition.h"
#include "compile/plan.h"
#include "ember/tensor.h"

namespace ember::compile {

// The gradients of a call's primals for `grads` of its outputs, computed by
// running the function eagerly with its history recorded: what a backward
// with create_graph=True needs (Note [Compiled training]).
using EagerBackward = std::function<std::vector<Tensor>(const std::vector<Tensor>& grads)>;

// A call the trace no longer describes (an input that requires grad now
// and did not when traced): the caller traces again.
class StaleTrace : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the autograd node keeps of a training plan; shared, so that a graph
// outlives the compiled function that made it.
struct BackwardPart {
  std::shared_ptr<const Plan> plan;
  std::vector<int> tangent_of_output;   // position among the tangents, or -1
  std::vector<int> gradient_of_primal;  // position among the gradients, or -1
};

// A compiled training graph: the forward plan runs at the call; one autograd
// node, the grad_fn of every differentiable output, runs the backward plan
// on the saved values and the output gradients. Hooks, retain_graph and
// the checks on saved tensors changed in place are the engine's, as for
// any node.
class TrainingPlan {
 public:
  TrainingPlan(const JointGraph& joint, const PlanOptions& options);

  // `inputs` are the primals in the joint graph's order.
  std::vector<Tensor> run(std::span<const Tensor> inputs, EagerBackward eager_backward = nullptr) const;

  const std::shared_ptr<const Plan>& forward() const { return forward_; }
  const std::shared_ptr<const Plan>& backward() const { return backward_->plan; }
  const Partition& partition() const { return partition_; }

 private:
  Partition partition_;
  std::shared_ptr<const Plan> forward_;
  std::shared_ptr<const BackwardPart> backward_;
  int num_outputs_ = 0;
  int num_primals_ = 0;
  std::vector<bool> primal_requires_grad_;  // at trace time
};

}  // namespace ember::compile
