#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/tensor.h"

namespace ember::autograd {

class Node;

// Where a gradient goes: input `input_nr` of `node` (a node's inputs are the
// gradients of its op's outputs).
struct Edge {
  std::shared_ptr<Node> node;
  uint32_t input_nr = 0;
  bool valid() const { return node != nullptr; }
};

// A tensor kept for the backward pass, with the version it had when saved
// (Note [Version counter]): using it after an in-place change is an error.
class SavedTensor {
 public:
  SavedTensor(const Tensor& tensor, const std::string& op);
  Tensor unpack() const;
  // The saved tensor is output `output_nr` of `node`, which owns this
  // record: keep only its data and a weak reference to the node, so that
  // the node and its output do not own each other (PyTorch's saved-output
  // rule); unpack() gives the tensor its history back.
  void mark_output_of(const std::shared_ptr<Node>& node, uint32_t output_nr);
  // Hands the tensor to this thread's innermost saved-tensor pack hook, if
  // one is pushed, and keeps what it returns instead; called once the record
  // is complete (after mark_output_of), so that an output is packed without
  // the history that would make it own its node.
  void pack_if_hooked();
  // Whether this record holds `tensor` itself (unpacked).
  bool holds(const Tensor& tensor) const { return tensor_.defined() && tensor_.impl() == tensor.impl(); }

 private:
  Tensor tensor_;
  std::shared_ptr<PackedSavedTensor> packed_;
  // An output's history put back on what unpack gives (mark_output_of).
  Tensor with_history(const Tensor& tensor) const;
  uint32_t version_;
  std::string op_;
  std::weak_ptr<Node> producer_;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
};

// One recorded op call. apply() takes the gradient of each of the op's
// outputs (undefined where none flowed) and returns one per next edge.
class Node {
 public:
  Node(std::string name, std::vector<Edge> next_edges, uint32_t num_inputs);
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const std::string& name() const { return name_; }
  void rename(std::string name) { name_ = std::move(name); }
  const std::vector<Edge>& next_edges() const { return next_edges_; }
  uint32_t num_inputs() const { return num_inputs_; }
  // Later nodes run first when several are ready, as in PyTorch.
  uint64_t sequence_nr() const { return sequence_nr_; }

  virtual std::vector<Tensor> apply(std::vector<Tensor> grads) = 0;
  // Drops saved tensors after a backward without retain_graph.
  virtual void release_saved() {}

  // Returns a key for remove_pre_hook.
  uint64_t add_pre_hook(uint32_t input_nr, TensorHook hook);
  void remove_pre_hook(uint64_t key);
  // Each hook sees the gradient and may replace it by one of the same
  // shape, dtype and device (anything else is an error naming this node).
  void run_pre_hooks(std::vector<Tensor>& grads) const;

 private:
  struct PreHook {
    uint64_t key;
    uint32_t input_nr;
    TensorHook hook;
  };
  std::string name_;
  std::vector<Edge> next_edges_;
  uint32_t num_inputs_;
  uint64_t sequence_nr_;
  std::vector<PreHook> pre_hooks_;
  mutable std::mutex pre_hooks_mutex_;
};

// Note [Iterative graph teardown]
// A graph is a chain of shared pointers: a node owns its next nodes through
// its edges, and its saved tensors own theirs through their grad_fn. Freeing
// the last reference to a graph of a million ops would recurse a million
// deep in the destructors and overflow the stack. Every node is therefore
// made by make_node(), whose deleter, when called while another node is
// being deleted on this thread, only queues the node; the outermost deleter
// empties the queue in a loop, so teardown takes constant stack depth.
void delete_node(Node* node) noexcept;

template <typename T, typename... Args>
std::shared_ptr<T> make_node(Args&&... args) {
  return std::shared_ptr<T>(new T(std::forward<Args>(args)...), [](T* node) { delete_node(node); });
}

using SavedTensors = std::vector<SavedTensor>;
using BackwardFn =
    std::function<std::vector<Tensor>(const std::vector<Tensor>& grads, const std::vector<Tensor>& saved)>;

// A node whose backward is a function of the output gradients and the
// saved tensors.
class FunctionNode : public Node {
 public:
  FunctionNode(std::string name, std::vector<Edge> next_edges, uint32_t num_inputs, SavedTensors saved, BackwardFn fn);
  std::vector<Tensor> apply(std::vector<Tensor> grads) override;
  void release_saved() override;

 private:
  SavedTensors saved_;
  BackwardFn fn_;
  bool released_ = false;
};

// Sums gradients into a leaf's .grad. Holds the leaf weakly: the leaf's
// meta holds this node weakly too, and the graph owns it.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(const Tensor& leaf);
  std::vector<Tensor> apply(std::vector<Tensor> grads) override;
  std::shared_ptr<TensorImpl> leaf() const { return leaf_.lock(); }

 private:
  static void accumulate(struct AutogradMeta& meta, const Tensor& incoming);
  std::weak_ptr<TensorImpl> leaf_;
};

struct AutogradMeta {
  bool requires_grad = false;  // set by the user on leaves
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<AccumulateGrad> grad_accumulator;
  // Set once a hook is registered on the leaf: the hook lives on the
  // accumulator, which must then outlast every graph, as the tensor does.
  std::shared_ptr<AccumulateGrad> hooked_accumulator;
  // Run after each accumulation into grad, in registration order.
  std::vector<std::pair<uint64_t, PostAccumulateGradHook>> post_accumulate_hooks;
  std::mutex mutex;  // guards grad_accumulator, hooked_accumulator and grad
};

// The custom function a node runs, or null for every other kind of node.
std::shared_ptr<CustomFunction> custom_function_of(const Node& node);

// The edge a gradient for `t` flows along: its grad_fn, its accumulator if it
// is a leaf that requires grad, or an invalid edge.
Edge gradient_edge(const Tensor& t);

}  // namespace ember::autograd
