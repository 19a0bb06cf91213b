#include "autograd/derivatives.h"
#include "autograd/inplace_views.h"
#include "autograd/record.h"
#include "dispatch/dispatcher.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {
namespace {

BackwardFn missing_derivative(const std::string& op) {
  return [op](const std::vector<Tensor>&, const std::vector<Tensor>&) -> std::vector<Tensor> {
    throw_error(ErrorKind::NotImplemented, "the derivative for '" + op + "' is not implemented");
  };
}

// Ops without tensor inputs (fill, arange, uniform written into a tensor)
// pass no gradient anywhere: what they overwrite gets none.
BackwardFn no_inputs() {
  return [](const std::vector<Tensor>&, const std::vector<Tensor>&) { return std::vector<Tensor>{}; };
}

// The one output an in-place (or out=) call writes into, or null.
Tensor* written_output(dispatch::OpCall& call) {
  for (int64_t i = 0; i < call.num_outputs; ++i) {
    if (call.outputs[i].defined()) return &call.outputs[i];
  }
  return nullptr;
}

int64_t input_index_of(const dispatch::OpCall& call, const Tensor& t) {
  for (int64_t i = 0; i < call.num_inputs; ++i) {
    if (call.inputs[i].impl() == t.impl()) return i;
  }
  return -1;
}

struct DerivativeEntry {
  DerivativeMaker make = nullptr;
  bool reads_outputs = false;
};

// Written once while the registry is built, before any call reads it.
std::vector<DerivativeEntry>& derivative_table() {
  static std::vector<DerivativeEntry> table;
  return table;
}

bool derivative_reads_outputs(dispatch::OpIndex index) {
  const auto& table = derivative_table();
  return index < table.size() && table[index].reads_outputs;
}

}  // namespace

void set_derivative(dispatch::OpIndex index, DerivativeMaker derivative, bool reads_outputs) {
  auto& table = derivative_table();
  if (table.size() <= index) table.resize(static_cast<size_t>(index) + 1);
  table[index] = {derivative, reads_outputs};
}

DerivativeMaker find_derivative(dispatch::OpIndex index) {
  const auto& table = derivative_table();
  return index < table.size() ? table[index].make : nullptr;
}

void run_autograd_step(const dispatch::Op& op, dispatch::OpCall& call) {
  Tensor* target = written_output(call);
  bool writes_history = false;
  if (target != nullptr) {
    check_inplace(*target, op.name());
    // Writing into a tensor with history replaces that history, even when
    // no input requires grad (x.zero_() cuts x off from what made it).
    writes_history = is_grad_enabled() && target->requires_grad();
  }
  const bool needs_grad = writes_history || any_requires_grad(call.inputs, call.num_inputs);
  std::vector<Tensor> saved;
  BackwardFn backward;
  if (needs_grad) {
    const DerivativeMaker make = find_derivative(op.index());
    backward = make ? make(call, saved) : call.num_inputs == 0 ? no_inputs() : missing_derivative(op.name());
    // An in-place call overwrites what it reads: keep the old values.
    for (Tensor& s : saved) {
      for (int64_t i = 0; i < call.num_outputs; ++i) {
        if (call.outputs[i].defined() && s.defined() && s.is_alias_of(call.outputs[i])) {
          NoGradGuard no_grad;
          s = s.clone();
          break;
        }
      }
    }
  }
  {
    ExcludeDispatchKeysGuard below(DispatchKeySet::of(DispatchKey::Autograd));
    dispatch::call(op, call);
  }
  if (!needs_grad) return;
  // Note [Derivatives that read outputs]
  // A fused kernel's backward may need what its forward computed (attention's
  // log-sum-exp), which the derivative maker, run before the op, cannot see.
  // Such an op's outputs are saved after the maker's tensors as detached
  // aliases: they share the storage, so its version counter still catches an
  // in-place change, but hold no grad_fn, so the node does not own itself.
  if (derivative_reads_outputs(op.index())) {
    for (int64_t i = 0; i < call.num_outputs; ++i) saved.push_back(call.outputs[i].detach());
  }
  const bool through_view = target != nullptr && target->impl()->is_view();
  const int64_t self_input = target != nullptr ? input_index_of(call, *target) : -1;
  const Tensor* node_inputs = call.inputs;
  int64_t num_node_inputs = call.num_inputs;
  std::vector<Tensor> with_target;
  if (writes_history && !through_view && self_input < 0) {
    // An overwrite (copy_, fill_) still has an edge to the history it
    // replaced, which receives a zero gradient, as in PyTorch.
    with_target.assign(call.inputs, call.inputs + call.num_inputs);
    with_target.push_back(*target);
    node_inputs = with_target.data();
    num_node_inputs = static_cast<int64_t>(with_target.size());
    backward = [inner = std::move(backward), num_inputs = static_cast<size_t>(call.num_inputs), sizes = target->sizes(),
                options = TensorOptions(target->dtype(), target->device())](const std::vector<Tensor>& grads,
                                                                            const std::vector<Tensor>& saved_values) {
      std::vector<Tensor> out = inner(grads, saved_values);
      out.resize(num_inputs);
      out.push_back(zeros(sizes, options));
      return out;
    };
  }
  auto node = make_function_node(backward_name(op.name()), node_inputs, num_node_inputs, call.num_outputs, saved,
                                 std::move(backward));
  if (through_view) {
    rebase_view_history(*target, node, self_input);
  } else {
    set_history(node, call.outputs, call.num_outputs);
  }
}

}  // namespace ember::autograd
