#include "autograd/derivatives.h"
#include "autograd/record.h"
#include "dispatch/dispatcher.h"
#include "ember/error.h"

namespace ember::autograd {
namespace {

BackwardFn missing_derivative(const std::string& op) {
  return [op](const std::vector<Tensor>&, const std::vector<Tensor>&) -> std::vector<Tensor> {
    throw_error(ErrorKind::NotImplemented, "the derivative for '" + op + "' is not implemented");
  };
}

}  // namespace

void run_autograd_step(const dispatch::Op& op, dispatch::OpCall& call) {
  const bool needs_grad = any_requires_grad(call.inputs, call.num_inputs);
  for (int64_t i = 0; i < call.num_outputs; ++i) {
    if (call.outputs[i].defined()) check_inplace(call.outputs[i], op.name());
  }
  std::vector<Tensor> saved;
  BackwardFn backward;
  if (needs_grad) {
    const DerivativeMaker make = find_derivative(op.name());
    backward = make ? make(call, saved) : missing_derivative(op.name());
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
  if (needs_grad) {
    record(op.name() + "Backward", call.inputs, call.num_inputs, call.outputs, call.num_outputs, saved,
           std::move(backward));
  }
}

}  // namespace ember::autograd
