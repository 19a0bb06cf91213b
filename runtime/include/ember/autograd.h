#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::autograd {

// Accumulates d(sum of roots * grad_roots)/d(leaf) into every leaf's .grad.
// `grad_roots` may be empty when every root is a scalar (a gradient of 1).
// Without retain_graph the graph's saved tensors are freed as it runs, so a
// second backward through it is an error. With create_graph the backward
// pass is itself recorded, for higher-order gradients.
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots = {},
              bool retain_graph = false, bool create_graph = false);

// The gradients of `outputs` with respect to `inputs`, returned instead of
// accumulated (no .grad changes). An input the outputs do not depend on is
// an error unless allow_unused, in which case its gradient is undefined.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool create_graph = false, bool allow_unused = false);

bool is_grad_enabled();

// RAII guards, like torch.no_grad(), torch.enable_grad() and
// torch.inference_mode(): gradient recording is thread-local dispatch state
// (the Autograd key excluded or not).
class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool was_enabled_;
};

class EnableGradGuard {
 public:
  EnableGradGuard();
  ~EnableGradGuard();
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool was_enabled_;
};

// Inference mode records nothing, like no_grad; tensors made in it are
// ordinary tensors here (PyTorch's extra inference-tensor checks are not
// modelled).
using InferenceModeGuard = NoGradGuard;

// A hook sees the gradient flowing into a tensor and may return a
// replacement (or an undefined Tensor to keep it).
using TensorHook = std::function<Tensor(const Tensor&)>;
void register_hook(const Tensor& tensor, TensorHook hook);

}  // namespace ember::autograd
