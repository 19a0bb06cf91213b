#pragma once

#include <functional>
#include <vector>

#include "ember/tensor.h"

namespace ember::autograd {

// The derivative of a fused composite kernel that has no formula of its own
// (or whose backward kernels the backend lacks): runs the composite's
// decomposition again on the saved inputs and differentiates it. With grad
// mode on (a create_graph backward) the gradients stay connected to
// `inputs`, so higher orders work; otherwise the inputs are detached first.
// Inputs that do not require a gradient get an undefined one.
std::vector<Tensor> differentiate_decomposition(const std::function<Tensor(const std::vector<Tensor>&)>& decomposition,
                                                const std::vector<Tensor>& inputs, const Tensor& grad_output);

}  // namespace ember::autograd
