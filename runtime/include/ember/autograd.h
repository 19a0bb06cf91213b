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
// replacement of the same shape, dtype and device (or an undefined Tensor
// to keep it).
using TensorHook = std::function<Tensor(const Tensor&)>;

// Removes the hook it was returned for; removing twice, or after the graph
// is gone, does nothing.
class HookHandle {
 public:
  explicit HookHandle(std::function<void()> remover) : remover_(std::move(remover)) {}
  void remove();

 private:
  std::function<void()> remover_;
};
HookHandle register_hook(const Tensor& tensor, TensorHook hook);

// Called with the leaf after its .grad received a gradient
// (Tensor.register_post_accumulate_grad_hook): DDP starts reducing a
// gradient bucket from it while the backward goes on.
using PostAccumulateGradHook = std::function<void(const Tensor&)>;
HookHandle register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook);

// Runs `callback` once the backward pass running on this thread has run
// every node (torch's Variable._execution_engine.queue_callback); throws
// outside a backward pass. Callbacks may queue more.
void queue_callback(std::function<void()> callback);

// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks): while a
// pack hook is pushed on a thread, each tensor autograd saves there for a
// backward pass is handed to the innermost one, and what it returns is kept
// in the tensor's place until the backward unpacks it (offloading to host
// memory, compressing, recomputing). Tensors the hooks themselves save are
// not packed again.
class PackedSavedTensor {
 public:
  virtual ~PackedSavedTensor() = default;
  virtual Tensor unpack() const = 0;
};
using SavedTensorPackHook = std::function<std::shared_ptr<PackedSavedTensor>(const Tensor&)>;
void push_saved_tensor_pack_hook(SavedTensorPackHook hook);
// Throws when none is pushed.
void pop_saved_tensor_pack_hook();

class SavedTensor;

// What a custom function's forward leaves for its backward.
class FunctionContext {
 public:
  FunctionContext();
  ~FunctionContext();
  FunctionContext(const FunctionContext&) = delete;
  FunctionContext& operator=(const FunctionContext&) = delete;

  // Saved tensors are version-checked: changing one in place before the
  // backward runs is an error naming the function.
  void save_for_backward(const std::vector<Tensor>& tensors);
  std::vector<Tensor> saved_tensors() const;
  // Outputs that never get a gradient (indices, masks).
  void mark_non_differentiable(const std::vector<Tensor>& outputs);
  // Whether input i needs a gradient; backward may return an undefined
  // Tensor for inputs that do not.
  bool needs_input_grad(size_t input) const;

 private:
  friend std::vector<Tensor> apply_function(const std::shared_ptr<class CustomFunction>&, const std::vector<Tensor>&);
  friend class CustomFunctionNode;
  std::string name_;
  std::vector<SavedTensor> saved_;
  std::vector<bool> needs_input_grad_;
  std::vector<std::shared_ptr<TensorImpl>> non_differentiable_;
};

// A differentiable function defined by its forward and backward, like
// torch.autograd.Function. forward runs without recording; backward gets one
// gradient per output (undefined where none flowed) and returns one per
// input.
class CustomFunction {
 public:
  virtual ~CustomFunction() = default;
  virtual std::string name() const = 0;
  // What grad_fn shows; PyTorch names a Python Function's node "<name>Backward".
  virtual std::string node_name() const { return name() + "Backward"; }
  virtual std::vector<Tensor> forward(FunctionContext& ctx, const std::vector<Tensor>& inputs) = 0;
  virtual std::vector<Tensor> backward(FunctionContext& ctx, const std::vector<Tensor>& grad_outputs) = 0;
  // Called once the graph no longer needs the function (after a backward
  // without retain_graph): drop whatever forward left behind.
  virtual void release() {}
};

// Runs fn on inputs and, when an input requires a gradient, records it.
std::vector<Tensor> apply_function(const std::shared_ptr<CustomFunction>& fn, const std::vector<Tensor>& inputs);

}  // namespace ember::autograd
