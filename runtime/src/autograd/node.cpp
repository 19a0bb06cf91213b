#include "autograd/node.h"

#include <algorithm>

#include <atomic>
#include <memory>
#include <optional>

#include "autograd/inplace_views.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {
namespace {

std::atomic<uint64_t> g_next_sequence_nr{0};

std::string describe(const Tensor& t) { return std::string(dtype_name(t.dtype())) + " " + shape_str(t.sizes()); }

// `t` as a gradient .grad may keep and later add to in place: itself when
// nothing else holds its memory; when it is a view of a base only it holds
// (linear's weight gradient, the transpose of the product computed in the
// weight's layout), a tensor of its own over that memory; else nothing.
std::optional<Tensor> as_owned_grad(const Tensor& t) {
  const std::shared_ptr<TensorImpl>& impl = t.impl_ptr();
  if (impl.use_count() != 1 || !t.is_contiguous() || !t.is_leaf()) return std::nullopt;
  const std::shared_ptr<TensorImpl>& base = impl->view_base();
  if (base == nullptr) return impl->storage().use_count() == 1 ? std::optional<Tensor>(t) : std::nullopt;
  if (base.use_count() != 1 || impl->storage().use_count() != 2) return std::nullopt;
  return Tensor(
      std::make_shared<TensorImpl>(impl->storage(), t.dtype(), t.sizes(), t.strides(), impl->storage_offset()));
}

}  // namespace

SavedTensor::SavedTensor(const Tensor& tensor, const std::string& op)
    : tensor_(tensor), version_(tensor.defined() ? tensor.version() : 0), op_(op) {}

void SavedTensor::mark_output_of(const std::shared_ptr<Node>& node, uint32_t output_nr) {
  tensor_ = tensor_.detach();
  producer_ = node;
  output_nr_ = output_nr;
  is_output_ = true;
}

namespace {

// This thread's pushed pack hooks, innermost last, and whether one is running.
thread_local std::vector<SavedTensorPackHook> t_pack_hooks;
thread_local bool t_packing = false;

class PackingScope {
 public:
  PackingScope() { t_packing = true; }
  ~PackingScope() { t_packing = false; }
  PackingScope(const PackingScope&) = delete;
  PackingScope& operator=(const PackingScope&) = delete;
};

}  // namespace

void push_saved_tensor_pack_hook(SavedTensorPackHook hook) { t_pack_hooks.push_back(std::move(hook)); }

void pop_saved_tensor_pack_hook() {
  if (t_pack_hooks.empty()) throw_error(ErrorKind::Runtime, "pop_saved_tensor_pack_hook: no pack hook is pushed");
  t_pack_hooks.pop_back();
}

void SavedTensor::pack_if_hooked() {
  if (!tensor_.defined() || t_pack_hooks.empty() || t_packing) return;
  {
    PackingScope scope;
    packed_ = t_pack_hooks.back()(tensor_);
  }
  if (packed_ == nullptr) throw_error(ErrorKind::Runtime, "a saved-tensor pack hook returned nothing, for " + op_);
  tensor_ = Tensor();
}

Tensor SavedTensor::unpack() const {
  if (packed_ != nullptr) return with_history(packed_->unpack());
  if (tensor_.defined() && tensor_.version() != version_) {
    throw_error(ErrorKind::Runtime,
                "one of the variables needed for gradient computation has been modified by an inplace "
                "operation: [" +
                    describe(tensor_) + "], saved by " + op_ + ", is at version " + std::to_string(tensor_.version()) +
                    "; expected version " + std::to_string(version_) + " instead");
  }
  return with_history(tensor_);
}

Tensor SavedTensor::with_history(const Tensor& tensor) const {
  if (!is_output_ || !tensor.defined()) return tensor;
  Tensor out = tensor.detach();
  if (std::shared_ptr<Node> producer = producer_.lock()) {
    AutogradMeta& meta = out.impl()->ensure_autograd_meta();
    meta.grad_fn = std::move(producer);
    meta.output_nr = output_nr_;
  }
  return out;
}

Node::Node(std::string name, std::vector<Edge> next_edges, uint32_t num_inputs)
    : name_(std::move(name)),
      next_edges_(std::move(next_edges)),
      num_inputs_(num_inputs),
      sequence_nr_(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

uint64_t Node::add_pre_hook(uint32_t input_nr, TensorHook hook) {
  static std::atomic<uint64_t> next_key{0};
  const uint64_t key = next_key.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(pre_hooks_mutex_);
  pre_hooks_.push_back({key, input_nr, std::move(hook)});
  return key;
}

void Node::remove_pre_hook(uint64_t key) {
  std::lock_guard<std::mutex> lock(pre_hooks_mutex_);
  std::erase_if(pre_hooks_, [key](const PreHook& h) { return h.key == key; });
}

void Node::run_pre_hooks(std::vector<Tensor>& grads) const {
  std::vector<PreHook> hooks;
  {
    std::lock_guard<std::mutex> lock(pre_hooks_mutex_);
    hooks = pre_hooks_;
  }
  for (const PreHook& h : hooks) {
    const Tensor& grad = grads[h.input_nr];
    if (!grad.defined()) continue;
    Tensor replaced = h.hook(grad);
    if (!replaced.defined()) continue;
    if (replaced.dtype() != grad.dtype() || replaced.device() != grad.device() || !(replaced.sizes() == grad.sizes())) {
      throw_error(ErrorKind::Runtime, "a hook on the gradient flowing into " + name() + " changed it from " +
                                          describe(grad) + " on " + grad.device().str() + " to " + describe(replaced) +
                                          " on " + replaced.device().str() +
                                          "; a hook may return a new value but not a new shape, dtype or device");
    }
    grads[h.input_nr] = std::move(replaced);
  }
}

void delete_node(Node* node) noexcept {
  thread_local bool deleting = false;
  thread_local std::vector<Node*> pending;
  if (deleting) {
    pending.push_back(node);
    return;
  }
  deleting = true;
  delete node;
  while (!pending.empty()) {
    Node* next = pending.back();
    pending.pop_back();
    delete next;
  }
  deleting = false;
}

FunctionNode::FunctionNode(std::string name, std::vector<Edge> next_edges, uint32_t num_inputs, SavedTensors saved,
                           BackwardFn fn)
    : Node(std::move(name), std::move(next_edges), num_inputs), saved_(std::move(saved)), fn_(std::move(fn)) {}

std::vector<Tensor> FunctionNode::apply(std::vector<Tensor> grads) {
  if (released_) {
    throw_error(ErrorKind::Runtime,
                "Trying to backward through the graph a second time (or directly access saved tensors after they "
                "have already been freed), at " +
                    name() + ". Specify retain_graph=true if you need to backward through the graph a second time.");
  }
  std::vector<Tensor> saved;
  saved.reserve(saved_.size());
  for (const SavedTensor& s : saved_) saved.push_back(s.unpack());
  return fn_(grads, saved);
}

void FunctionNode::release_saved() {
  saved_.clear();
  released_ = true;
}

AccumulateGrad::AccumulateGrad(const Tensor& leaf) : Node("AccumulateGrad", {}, 1), leaf_(leaf.impl_ptr()) {}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor> grads) {
  std::shared_ptr<TensorImpl> impl = leaf_.lock();
  if (!impl || !grads[0].defined()) return {};
  Tensor leaf(impl);
  AutogradMeta& meta = impl->ensure_autograd_meta();
  accumulate(meta, grads[0]);
  std::vector<std::pair<uint64_t, PostAccumulateGradHook>> hooks;
  {
    std::lock_guard<std::mutex> lock(meta.mutex);
    hooks = meta.post_accumulate_hooks;
  }
  for (const auto& entry : hooks) entry.second(leaf);
  return {};
}

void AccumulateGrad::accumulate(AutogradMeta& meta, const Tensor& incoming) {
  std::lock_guard<std::mutex> lock(meta.mutex);
  if (!meta.grad.defined()) {
    // Later accumulation is in place, so .grad must own its memory: a
    // gradient nothing else references (the usual case) is kept,
    // anything shared or expanded is copied first.
    if (is_grad_enabled()) {
      meta.grad = incoming;
    } else if (std::optional<Tensor> owned = as_owned_grad(incoming)) {
      meta.grad = *std::move(owned);
    } else {
      meta.grad = incoming.detach().clone();
    }
  } else if (is_grad_enabled()) {
    meta.grad = meta.grad + incoming;  // create_graph: keep the sum differentiable
  } else {
    add_(meta.grad, incoming);
  }
}

Edge gradient_edge(const Tensor& t) {
  refresh_view_history(t);
  AutogradMeta* meta = t.impl()->autograd_meta();
  if (meta == nullptr) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (!meta->requires_grad) return {};
  std::lock_guard<std::mutex> lock(meta->mutex);
  std::shared_ptr<AccumulateGrad> acc = meta->grad_accumulator.lock();
  if (!acc) {
    acc = make_node<AccumulateGrad>(t);
    meta->grad_accumulator = acc;
  }
  return {acc, 0};
}

}  // namespace ember::autograd
