// The backward pass: count how many gradients each node waits for, then run
// nodes as their inputs complete, latest-recorded first (Note [Engine]).
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "autograd/node.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/profiler.h"
#include "profiler/profiler_state.h"

namespace ember::autograd {
namespace {

struct NodeTask {
  Node* node;
  bool operator<(const NodeTask& other) const { return node->sequence_nr() < other.node->sequence_nr(); }
};

// Where grad() collects gradients instead of accumulating them.
using CaptureMap = std::map<std::pair<Node*, uint32_t>, size_t>;

// The callbacks of the backward passes running on this thread, innermost last.
std::vector<std::vector<std::function<void()>>*>& running_callbacks() {
  thread_local std::vector<std::vector<std::function<void()>>*> stack;
  return stack;
}

class FinalCallbacks {
 public:
  FinalCallbacks() { running_callbacks().push_back(&queued_); }
  ~FinalCallbacks() { running_callbacks().pop_back(); }
  FinalCallbacks(const FinalCallbacks&) = delete;
  FinalCallbacks& operator=(const FinalCallbacks&) = delete;
  void run() {
    // A copy: a callback may queue more, which can move the vector.
    for (size_t i = 0; i < queued_.size(); ++i) {
      const std::function<void()> callback = queued_[i];
      callback();
    }
    queued_.clear();
  }

 private:
  std::vector<std::function<void()>> queued_;
};

std::unordered_map<Node*, int> count_dependencies(const std::vector<Edge>& roots) {
  std::unordered_map<Node*, int> deps;
  std::unordered_set<Node*> seen;
  std::vector<Node*> stack;
  for (const Edge& e : roots) {
    if (seen.insert(e.node.get()).second) stack.push_back(e.node.get());
  }
  while (!stack.empty()) {
    Node* node = stack.back();
    stack.pop_back();
    for (const Edge& next : node->next_edges()) {
      if (!next.valid()) continue;
      ++deps[next.node.get()];
      if (seen.insert(next.node.get()).second) stack.push_back(next.node.get());
    }
  }
  return deps;
}

void add_into(Tensor& slot, const Tensor& grad) { slot = slot.defined() ? slot + grad : grad; }

// For grad(): the nodes from which a captured edge can be reached. Others
// cannot contribute to the requested gradients and are not run, so grad()
// with respect to an intermediate tensor leaves the graph above it intact
// (and a derivative may call grad() on a sub-graph of its own).
std::unordered_set<Node*> nodes_leading_to(const std::vector<Edge>& roots, const CaptureMap& captures) {
  std::unordered_map<Node*, bool> leads;
  std::vector<std::pair<Node*, size_t>> stack;  // node, next edge to visit
  for (const Edge& root : roots) {
    if (leads.count(root.node.get()) != 0) continue;
    leads[root.node.get()] = false;
    stack.emplace_back(root.node.get(), 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const auto& edges = node->next_edges();
      if (next == edges.size()) {
        Node* done = node;
        stack.pop_back();
        if (!stack.empty() && leads[done]) leads[stack.back().first] = true;
        continue;
      }
      const Edge& e = edges[next++];
      if (!e.valid()) continue;
      if (captures.count({e.node.get(), e.input_nr}) != 0) leads[node] = true;
      auto [it, inserted] = leads.emplace(e.node.get(), false);
      if (inserted) {
        stack.emplace_back(e.node.get(), 0);
      } else if (it->second) {
        leads[node] = true;
      }
    }
  }
  std::unordered_set<Node*> out;
  for (const auto& [node, yes] : leads) {
    if (yes) out.insert(node);
  }
  return out;
}

// Note [Engine]
// Every node's incoming gradients are summed in a buffer; a node runs once
// all the nodes that feed it have run (its dependency count reaches zero).
// Callbacks queued meanwhile (queue_callback) run after the last node.
// Ready nodes run in decreasing sequence number, so a graph's later ops run
// first, as in PyTorch. With captures (grad()), gradients arriving at a
// captured edge are recorded and leaves accumulate nothing.
void run_backward(const std::vector<Edge>& roots, const std::vector<Tensor>& root_grads, bool retain_graph,
                  bool create_graph, const CaptureMap* captures, std::vector<Tensor>* captured) {
  FinalCallbacks callbacks;
  std::unordered_map<Node*, int> deps = count_dependencies(roots);
  std::optional<std::unordered_set<Node*>> needed;
  if (captures != nullptr) needed = nodes_leading_to(roots, *captures);
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::unordered_map<Node*, std::shared_ptr<Node>> keep_alive;
  std::priority_queue<NodeTask> ready;
  auto deliver = [&](const Edge& edge, const Tensor& grad) {
    Node* node = edge.node.get();
    if (captures != nullptr) {
      if (auto it = captures->find({node, edge.input_nr}); it != captures->end()) {
        add_into((*captured)[it->second], grad);
      }
    }
    auto& buffer = buffers[node];
    if (buffer.empty()) buffer.resize(node->num_inputs());
    if (grad.defined()) add_into(buffer[edge.input_nr], grad);
    keep_alive.emplace(node, edge.node);
  };
  for (size_t i = 0; i < roots.size(); ++i) deliver(roots[i], root_grads[i]);
  for (const Edge& e : roots) {
    if (deps[e.node.get()] == 0) ready.push({e.node.get()});
  }
  std::unordered_set<Node*> queued;
  std::optional<NoGradGuard> no_grad;
  std::optional<EnableGradGuard> with_grad;
  if (create_graph) {
    with_grad.emplace();
  } else {
    no_grad.emplace();
  }
  while (!ready.empty()) {
    Node* node = ready.top().node;
    ready.pop();
    if (!queued.insert(node).second) continue;
    if (needed && needed->count(node) == 0) continue;
    std::vector<Tensor> grads = std::move(buffers[node]);
    grads.resize(node->num_inputs());
    node->run_pre_hooks(grads);
    const bool is_leaf_sink = dynamic_cast<AccumulateGrad*>(node) != nullptr;
    std::vector<Tensor> outputs;
    // The backward ops of a node are children of a range named as PyTorch
    // names it, so a profile tells forward from backward time.
    std::optional<profiler::RecordFunction> node_range;
    if (profiler::profiling_on()) [[unlikely]] {
      node_range.emplace("autograd::engine::evaluate_function: " + node->name());
    }
    if (!(is_leaf_sink && captures != nullptr)) outputs = node->apply(std::move(grads));
    node_range.reset();
    if (!retain_graph) node->release_saved();
    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      if (!edges[i].valid()) continue;
      deliver(edges[i], i < outputs.size() ? outputs[i] : Tensor());
      if (--deps[edges[i].node.get()] == 0) ready.push({edges[i].node.get()});
    }
  }
  callbacks.run();
}

void collect_roots(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots, std::vector<Edge>& edges,
                   std::vector<Tensor>& grads) {
  if (!grad_roots.empty() && grad_roots.size() != roots.size()) {
    throw_error(ErrorKind::Value, "backward: got " + std::to_string(grad_roots.size()) + " gradients for " +
                                      std::to_string(roots.size()) + " tensors");
  }
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& root = roots[i];
    Edge edge = gradient_edge(root);
    if (!edge.valid()) {
      throw_error(ErrorKind::Runtime,
                  "element " + std::to_string(i) + " of tensors does not require grad and does not have a grad_fn");
    }
    Tensor grad = grad_roots.empty() ? Tensor() : grad_roots[i];
    if (!grad.defined()) {
      if (root.numel() != 1) {
        throw_error(
            ErrorKind::Runtime,
            "grad can be implicitly created only for scalar outputs; got a tensor of shape " + shape_str(root.sizes()));
      }
      grad = ones_like(root);
    } else if (!(grad.sizes() == root.sizes())) {
      throw_error(ErrorKind::Value, "backward: gradient of shape " + shape_str(grad.sizes()) +
                                        " does not match the tensor's shape " + shape_str(root.sizes()));
    }
    edges.push_back(std::move(edge));
    grads.push_back(std::move(grad));
  }
}

}  // namespace

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots, bool retain_graph,
              bool create_graph) {
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  collect_roots(roots, grad_roots, edges, grads);
  run_backward(edges, grads, retain_graph || create_graph, create_graph, nullptr, nullptr);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, bool retain_graph, bool create_graph,
                         bool allow_unused) {
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  collect_roots(outputs, grad_outputs, edges, grads);
  CaptureMap captures;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge e = gradient_edge(inputs[i]);
    if (!e.valid()) {
      throw_error(ErrorKind::Runtime, "grad: input " + std::to_string(i) + " does not require grad");
    }
    captures.emplace(std::make_pair(e.node.get(), e.input_nr), i);
  }
  std::vector<Tensor> result(inputs.size());
  run_backward(edges, grads, retain_graph || create_graph, create_graph, &captures, &result);
  for (size_t i = 0; i < result.size(); ++i) {
    if (!result[i].defined() && !allow_unused) {
      throw_error(ErrorKind::Runtime, "grad: input " + std::to_string(i) +
                                          " was not used in the graph; set allow_unused=true if this is intended");
    }
  }
  return result;
}

HookHandle register_hook(const Tensor& tensor, TensorHook hook) {
  const Edge edge = gradient_edge(tensor);
  if (!edge.valid()) {
    throw_error(ErrorKind::Runtime, "cannot register a hook on a tensor that doesn't require gradient");
  }
  const uint64_t key = edge.node->add_pre_hook(edge.input_nr, std::move(hook));
  if (auto accumulator = std::dynamic_pointer_cast<AccumulateGrad>(edge.node)) {
    AutogradMeta* meta = tensor.impl()->autograd_meta();
    std::lock_guard<std::mutex> lock(meta->mutex);
    meta->hooked_accumulator = std::move(accumulator);
  }
  return HookHandle([node = std::weak_ptr<Node>(edge.node), key] {
    if (std::shared_ptr<Node> alive = node.lock()) alive->remove_pre_hook(key);
  });
}

void HookHandle::remove() {
  if (remover_) std::exchange(remover_, nullptr)();
}

HookHandle register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook) {
  AutogradMeta* meta = leaf.impl()->autograd_meta();
  if (meta == nullptr || !meta->requires_grad || meta->grad_fn) {
    throw_error(ErrorKind::Runtime, "post accumulate grad hooks cannot be registered on non-leaf tensors");
  }
  static std::atomic<uint64_t> next_key{1};
  const uint64_t key = next_key++;
  {
    std::lock_guard<std::mutex> lock(meta->mutex);
    meta->post_accumulate_hooks.emplace_back(key, std::move(hook));
  }
  return HookHandle([impl = std::weak_ptr<TensorImpl>(leaf.impl_ptr()), key] {
    std::shared_ptr<TensorImpl> alive = impl.lock();
    if (!alive || alive->autograd_meta() == nullptr) return;
    AutogradMeta* m = alive->autograd_meta();
    std::lock_guard<std::mutex> lock(m->mutex);
    std::erase_if(m->post_accumulate_hooks, [&](const auto& entry) { return entry.first == key; });
  });
}

void queue_callback(std::function<void()> callback) {
  if (running_callbacks().empty()) {
    throw_error(ErrorKind::Runtime, "queue_callback can only be called during the backward pass");
  }
  running_callbacks().back()->push_back(std::move(callback));
}

}  // namespace ember::autograd
