#pragma once

#include <string_view>
#include <vector>

#include "autograd/node.h"
#include "dispatch/op.h"

namespace ember::autograd {

// Builds the backward of one primitive call: appends the tensors it needs to
// `saved` (they come back, version-checked, in the same order) and returns
// the function from output gradients to input gradients. Runs before the
// op, so in-place calls still see their inputs' old values.
using DerivativeMaker = BackwardFn (*)(const dispatch::OpCall& call, std::vector<Tensor>& saved);

// nullptr for ops without a derivative (their outputs then fail at backward).
DerivativeMaker find_derivative(std::string_view op);

// The Autograd dispatch step (Note [Dispatch keys]): runs the op below the
// Autograd key and records it when any input requires a gradient.
void run_autograd_step(const dispatch::Op& op, dispatch::OpCall& call);

}  // namespace ember::autograd
