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
    // Under create_graph each input enters as a fresh view of itself: the
    // gradients stay connected to the input for higher orders, but grad()
    // finds only the paths through the decomposition's own uses. Asking for
    // the input itself would also follow one input's history back to
    // another (x made from w) and take the total derivative, which the
    // engine then propagates along that history a second time.
    args.push_back(create_graph ? in.view(in.sizes()) : in.detach().requires_grad_());
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
