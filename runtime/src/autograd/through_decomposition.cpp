#include "autograd/through_decomposition.h"

#include "dispatch/dispatcher.h"
#include "ember/autograd.h"

namespace ember::autograd {

std::vector<Tensor> differentiate_decomposition(const std::function<Tensor(const std::vector<Tensor>&)>& decomposition,
                                                const std::vector<Tensor>& inputs, const Tensor& grad_output) {
  const bool create_graph = is_grad_enabled();
  std::vector<Tensor> args;
  std::vector<Tensor> wrt;
  std::vector<size_t> wrt_positions;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    if (!in.defined() || !in.requires_grad()) {
      args.push_back(in.defined() ? in.detach() : in);
      continue;
    }
    // grad() runs only the sub-graph below these inputs, so passing them
    // undetached never touches the graph that made them.
    args.push_back(create_graph ? in : in.detach().requires_grad_());
    wrt.push_back(args.back());
    wrt_positions.push_back(i);
  }
  std::vector<Tensor> grads(inputs.size());
  if (wrt.empty()) return grads;
  Tensor out;
  {
    EnableGradGuard record;
    dispatch::DecompositionGuard decompose;
    out = decomposition(args);
  }
  const std::vector<Tensor> found = grad({out}, wrt, {grad_output}, false, create_graph, /*allow_unused=*/true);
  for (size_t k = 0; k < wrt.size(); ++k) grads[wrt_positions[k]] = found[k];
  return grads;
}

}  // namespace ember::autograd
