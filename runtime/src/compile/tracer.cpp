// The Trace step and the tracer behind it (Note [Capture by tracing],
// Note [Graph breaks]).
#include "compile/tracer.h"

#include <algorithm>
#include <array>
#include <unordered_set>

#include "compile/fusion.h"
#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_id.h"
#include "dispatch/op_registry.h"
#include "dispatch/step_table.h"
#include "dispatch/trace_hooks.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ops/random_stream.h"

namespace ember::compile {

using dispatch::Op;
using dispatch::OpCall;
using dispatch::OpId;
using dispatch::kMaxOutputs;
using dispatch::TensorMeta;

namespace {

thread_local Tracer* t_current = nullptr;

std::shared_ptr<Storage> storage_without_memory(size_t nbytes, Device device) {
  return std::make_shared<Storage>(nullptr, nbytes, device, nullptr, nullptr);
}

bool is_random(const Op& op) {
  return op.index() == static_cast<dispatch::OpIndex>(OpId::Uniform) ||
         op.index() == static_cast<dispatch::OpIndex>(OpId::Normal);
}

// Note [Ops answered from shapes in traces]
// lstm_layer_workspace_bytes answers from its operands' shapes alone
// (ops.md), and a trace's guards fix those shapes. So the tracer asks the
// backend at once, on uninitialised stand-ins of the same shapes, and the
// answer is a real tensor the host reads without a break: the workspace's
// size becomes an attribute of the traced lstm_layer (Note [LSTM layer
// workspace]), and the workspace an output of that extern call, saved
// between the halves of a training plan as extern outputs are (Note
// [Compiled training]).
bool answers_from_shapes(const Op& op) {
  return op.index() == static_cast<dispatch::OpIndex>(OpId::LstmLayerWorkspaceBytes);
}

void answer_from_shapes(const Op& op, const OpCall& call) {
  ExcludeDispatchKeysGuard no_trace(DispatchKeySet::of(DispatchKey::Trace));
  std::vector<Tensor> stand_ins;
  for (int64_t i = 0; i < call.num_inputs; ++i) {
    const Tensor& operand = call.inputs[i];
    stand_ins.push_back(empty(operand.sizes(), TensorOptions(operand.dtype(), operand.device())));
  }
  OpCall on_stand_ins = call;
  on_stand_ins.inputs = stand_ins.data();
  dispatch::call(op, on_stand_ins);
}

}  // namespace

std::shared_ptr<const Plan> SegmentCache::find(const std::string& signature) const {
  auto it = plans_.find(signature);
  return it == plans_.end() ? nullptr : it->second;
}

void SegmentCache::add(const std::string& signature, std::shared_ptr<const Plan> plan) {
  plans_.emplace(signature, std::move(plan));
}

Tracer::Tracer(TraceOptions options, std::shared_ptr<SegmentCache> cache)
    : options_(std::move(options)),
      cache_(std::move(cache)),
      previous_(t_current),
      grad_enabled_(autograd::is_grad_enabled()),
      random_position_(random_stream::position()) {
  install_trace_step();
  if (previous_ != nullptr) throw TraceUnsupported("a compiled function called while another one is being traced");
  t_current = this;
  include_trace_ = std::make_unique<IncludeDispatchKeysGuard>(DispatchKeySet::of(DispatchKey::Trace));
}

Tracer::~Tracer() { close(); }

void Tracer::close() {
  if (!active_) return;
  release_updated();
  active_ = false;
  include_trace_.reset();
  t_current = previous_;
}

Tracer* Tracer::current() { return t_current; }

// Note [Gradients read while tracing]: an optimizer's step reads each
// parameter's .grad, which backward replaces with a new tensor whenever
// zero_grad set it to None. A captured tensor is read again by identity at
// every call, so the caller swaps in the parameter's present .grad for a
// captured gradient (python/ember/compiler/_compiled.py), and traces again
// when it is None or laid out otherwise.
void Tracer::note_grad_read(const Tensor& param, const Tensor& grad) {
  grad_owners_[grad.impl()] = {grad.impl_ptr(), param.impl_ptr()};
}

std::vector<Tensor> Tracer::captured_grad_owners() const {
  std::vector<Tensor> owners;
  for (const Tensor& t : captured_) {
    auto it = grad_owners_.find(t.impl());
    std::shared_ptr<TensorImpl> param = it == grad_owners_.end() ? nullptr : it->second.second.lock();
    owners.push_back(param != nullptr && it->second.first.lock() == t.impl_ptr() ? Tensor(param) : Tensor());
  }
  return owners;
}

bool Tracer::made_by_pointwise(const Tensor& t) const {
  auto it = known_.find(t.impl());
  if (it == known_.end() || it->second.impl.lock() != t.impl_ptr()) return false;
  int id = it->second.value;
  while (true) {
    const Value& v = graph_.values[static_cast<size_t>(id)];
    if (v.origin != ValueOrigin::Node) return false;
    const Node& node = graph_.nodes[static_cast<size_t>(v.producer)];
    const NodeKind kind = node_kind(graph_, node);
    if (kind != NodeKind::View) return kind == NodeKind::Pointwise;
    id = node.inputs[0];
  }
}

EagerRegion::EagerRegion(const std::string& reason) {
  Tracer* tracer = Tracer::current();
  if (tracer == nullptr || !dispatch::tracing_on_this_thread()) return;
  tracer->break_graph(reason);
  LocalDispatchKeys& keys = local_dispatch_keys();
  included_before_ = keys.included;
  keys.included = keys.included - DispatchKeySet::of(DispatchKey::Trace);
}

EagerRegion::~EagerRegion() {
  if (included_before_) local_dispatch_keys().included = *included_before_;
}

int Tracer::new_value(const TensorMeta& meta, Device device, int storage_of) {
  Value v;
  v.dtype = meta.dtype;
  v.device = device;
  v.sizes = meta.sizes;
  v.strides = meta.strides.empty() ? contiguous_strides(meta.sizes) : meta.strides;
  v.storage_offset = meta.storage_offset;
  const int id = static_cast<int>(graph_.values.size());
  v.storage_of = storage_of < 0 ? id : storage_of;
  graph_.values.push_back(std::move(v));
  return id;
}

Tensor Tracer::tracing_tensor(int value, const std::shared_ptr<Storage>& storage) {
  const Value& v = graph_.values[static_cast<size_t>(value)];
  auto impl = std::make_shared<TensorImpl>(storage, v.dtype, v.sizes, v.strides, v.storage_offset);
  impl->mark_traced();
  Tensor t(std::move(impl));
  bind(t, value);
  return t;
}

void Tracer::alias(const Tensor& t, const Tensor& same) { bind(same, value_of(t)); }

void Tracer::bind(const Tensor& tracing, int value) { known_[tracing.impl()] = Known{tracing.impl_ptr(), value}; }

bool Tracer::is_fresh(const Tensor& t) const {
  auto it = fresh_index_.find(t.impl());
  return it != fresh_index_.end() && fresh_[static_cast<size_t>(it->second)].lock() == t.impl_ptr();
}

void Tracer::note_fresh(const Tensor& t) {
  fresh_index_[t.impl()] = static_cast<int>(fresh_.size());
  fresh_.push_back(t.impl_ptr());
}

int Tracer::capture(const Tensor& real) {
  TensorMeta meta{real.sizes(), real.dtype(), real.strides(), 0};
  if (is_fresh(real) && real.numel() == 1 && real.dim() == 0) {
    const int id = new_value(meta, real.device(), -1);
    Value& v = graph_.values[static_cast<size_t>(id)];
    v.origin = ValueOrigin::Constant;
    ExcludeDispatchKeysGuard no_trace(DispatchKeySet::of(DispatchKey::Trace));
    v.constant = real.item().to_double();
    known_[real.impl()] = Known{real.impl_ptr(), id};
    return id;
  }
  const int id = new_value(meta, real.device(), -1);
  Value& v = graph_.values[static_cast<size_t>(id)];
  v.origin = ValueOrigin::Input;
  v.input_index = static_cast<int>(graph_.inputs.size());
  graph_.inputs.push_back(id);
  // A tensor the function made may be written in place later in the trace,
  // which makes it a tracing tensor: the binding keeps its present data.
  bindings_.push_back(is_fresh(real) ? real.detach() : real);
  known_[real.impl()] = Known{real.impl_ptr(), id};
  return id;
}

Tensor Tracer::add_input(const Tensor& real) {
  const int id = capture(real);
  ++num_arguments_;
  const Value& v = graph_.values[static_cast<size_t>(id)];
  const size_t nbytes = static_cast<size_t>(storage_nbytes(v.sizes, v.strides, 0, itemsize(v.dtype)));
  Tensor tracing = tracing_tensor(id, storage_without_memory(nbytes, v.device));
  if (grad_enabled_ && real.requires_grad()) {
    tracing.requires_grad_(true);
    differentiable_arguments_.emplace_back(v.input_index, tracing);
  }
  return tracing;
}

int Tracer::value_of(const Tensor& t) {
  auto it = known_.find(t.impl());
  if (it != known_.end() && it->second.impl.lock() == t.impl_ptr()) return it->second.value;
  if (dispatch::is_tracing(t)) {
    throw_error(ErrorKind::Runtime,
                "a tensor of another traced graph was used in this one (a tracing tensor "
                "kept from an earlier call of a compiled function)");
  }
  const int id = capture(t);
  if (num_arguments_ < static_cast<int>(graph_.inputs.size()) &&
      graph_.values[static_cast<size_t>(id)].origin == ValueOrigin::Input) {
    captured_.push_back(bindings_.back());
  }
  return id;
}

void Tracer::record(const Op& op, OpCall& call) {
  if (answers_from_shapes(op)) {
    answer_from_shapes(op, call);
    return;
  }
  const auto& schema = op.schema();
  // In-place and out= calls write into given outputs.
  bool writes_output = false;
  for (int64_t i = 0; i < call.num_outputs; ++i) writes_output |= call.outputs[i].defined();
  // Only tensors the function made from constants while tracing are
  // constants; a tensor read from outside may change between calls.
  bool constant_inputs = true;
  for (int64_t i = 0; i < call.num_inputs; ++i) {
    constant_inputs &= !dispatch::is_tracing(call.inputs[i]) && is_fresh(call.inputs[i]);
  }

  if (writes_output) {
    for (int64_t i = 0; i < call.num_outputs; ++i) {
      const Tensor& out = call.outputs[i];
      // A traced view written in place (`out[1:-1] = x`) would take the new
      // value as its own, functional form, which its base and the base's
      // other views never read.
      const bool traced_view = dispatch::is_tracing(out) &&
                               graph_.values[static_cast<size_t>(value_of(out))].storage_of != value_of(out);
      if (traced_view || (out.impl()->is_view() && (dispatch::is_tracing(out) || !is_fresh(out)))) {
        throw TraceUnsupported(op.name() + ": in-place write into a view of a traced tensor");
      }
      // A leaf that requires grad reaches this step only with grad mode
      // off (eager's in-place check runs first); a tensor with history
      // would have it rewritten by the trace.
      if (!dispatch::is_tracing(out) && !is_fresh(out) && out.grad_fn() != nullptr) {
        throw TraceUnsupported(op.name() + ": in-place update of a tensor with autograd history, read from outside");
      }
    }
    // A factory or conversion on constants: computed now, once. Random
    // fills are recorded: each call draws anew (Note [Random ops in plans]).
    const Tensor& target = call.outputs[0];
    if (constant_inputs && !dispatch::is_tracing(target) && is_fresh(target) && !is_random(op)) {
      ExcludeDispatchKeysGuard no_trace(DispatchKeySet::of(DispatchKey::Trace));
      dispatch::call(op, call);
      return;
    }
  }

  Node node;
  node.op = op.index();
  for (int64_t i = 0; i < call.num_inputs; ++i) node.inputs.push_back(value_of(call.inputs[i]));
  // The graph input each written output updates (Note [Input updates]).
  std::array<int, kMaxOutputs> updates;
  updates.fill(-1);
  if (writes_output && call.num_outputs <= kMaxOutputs) {
    for (int64_t i = 0; i < call.num_outputs; ++i) {
      const Tensor& out = call.outputs[i];
      if (!dispatch::is_tracing(out) && is_fresh(out)) continue;
      const Value& old = graph_.values[static_cast<size_t>(value_of(out))];
      if (old.origin == ValueOrigin::Input) {
        updates[static_cast<size_t>(i)] = old.input_index;
      } else if (auto it = update_of_value_.find(value_of(out)); it != update_of_value_.end()) {
        updates[static_cast<size_t>(i)] = it->second;
      }
    }
  }
  for (int64_t i = 0; i < call.num_attrs; ++i) node.attrs.push_back(Attribute::from(call.attrs[i]));
  node.writes_output = writes_output;

  // Meta functions read only metadata, so the call's own tensors serve.
  std::array<TensorMeta, kMaxOutputs> metas;
  if (call.num_outputs > kMaxOutputs) throw TraceUnsupported(op.name() + ": too many outputs to trace");
  if (writes_output) {
    for (int64_t i = 0; i < call.num_outputs; ++i) {
      const Tensor& out = call.outputs[i];
      metas[i] = TensorMeta{out.sizes(), out.dtype(), out.strides(), 0};
    }
  } else {
    schema.meta(call, metas.data());
  }
  const Device device = call.num_inputs > 0 ? call.inputs[0].device() : call.outputs[0].device();
  const int node_index = static_cast<int>(graph_.nodes.size());
  for (int64_t i = 0; i < call.num_outputs; ++i) {
    int id = -1;
    std::shared_ptr<Storage> storage;
    if (schema.is_view()) {
      const Value& base = graph_.values[static_cast<size_t>(node.inputs[0])];
      id = new_value(metas[i], device, base.storage_of);
      storage = call.inputs[0].impl()->storage();
      if (!dispatch::is_tracing(call.inputs[0])) {
        // A view of a tensor read from outside: it stands over its own copy
        // of the layout, without memory.
        storage = storage_without_memory(call.inputs[0].impl()->storage()->nbytes(), device);
      }
    } else {
      id = new_value(metas[i], device, -1);
      const Value& v = graph_.values[static_cast<size_t>(id)];
      storage =
          storage_without_memory(static_cast<size_t>(storage_nbytes(v.sizes, v.strides, 0, itemsize(v.dtype))), device);
    }
    graph_.values[static_cast<size_t>(id)].producer = node_index;
    node.outputs.push_back(id);
    if (writes_output) {
      Tensor& out = call.outputs[i];
      if (const int input = updates[static_cast<size_t>(i)]; input >= 0) {
        update_of_value_[id] = input;
        latest_update_[input] = id;
      }
      if (updated_.count(out.impl()) != 0 || (!dispatch::is_tracing(out) && !is_fresh(out))) {
        // A tensor read from outside keeps its data until the plan writes
        // the new value into it; until then it is marked as tracing, so
        // that ops see the new value and a read of its values runs the
        // segment first (Note [Input updates]).
        if (updated_.emplace(out.impl(), out.impl_ptr()).second) out.impl()->mark_traced();
        bind(out, id);
        continue;
      }
      // The output tensor now stands for the new value (functional form).
      const Value& v = graph_.values[static_cast<size_t>(id)];
      TensorImpl layout(storage, v.dtype, v.sizes, v.strides, 0);
      out.impl()->set_data_from(layout);
      out.impl()->mark_traced();
      bind(out, id);
    } else {
      call.outputs[i] = tracing_tensor(id, storage);
    }
  }
  graph_.nodes.push_back(std::move(node));
}

void Tracer::start_segment() {
  random_position_ = random_stream::position();
  update_of_value_.clear();
  latest_update_.clear();
  graph_ = Graph{};
  known_.clear();
  bindings_.clear();
  num_arguments_ = 0;
}

void Tracer::release_updated() {
  for (auto& [raw, impl] : updated_) impl->clear_traced();
  updated_.clear();
}

void Tracer::add_input_updates(std::vector<int>& outputs) {
  graph_.input_updates.clear();
  for (const auto& [input, value] : latest_update_) {
    graph_.input_updates.push_back(InputUpdate{static_cast<int>(outputs.size()), input});
    outputs.push_back(value);
  }
}

std::vector<Tensor> Tracer::run_segment(const std::vector<int>& segment_outputs) {
  std::vector<int> outputs = segment_outputs;
  add_input_updates(outputs);
  graph_.outputs = outputs;
  const std::string signature = graph_.signature();
  std::shared_ptr<const Plan> plan = cache_ ? cache_->find(signature) : nullptr;
  if (plan == nullptr) {
    plan = std::make_shared<const Plan>(graph_, options_.plan);
    if (cache_) cache_->add(signature, plan);
  }
  segments_.push_back(plan);
  return run_plan([&] { return plan->run(bindings_); });
}

std::vector<Tensor> Tracer::run_plan(const std::function<std::vector<Tensor>()>& run) {
  ExcludeDispatchKeysGuard no_trace(DispatchKeySet::of(DispatchKey::Trace));
  include_trace_.reset();
  random_stream::rewind(random_position_);
  std::vector<Tensor> results = run();
  release_updated();
  if (active_) include_trace_ = std::make_unique<IncludeDispatchKeysGuard>(DispatchKeySet::of(DispatchKey::Trace));
  return results;
}

// A training trace that cannot break is abandoned and the call runs
// eagerly; tensors without history it made and that are still alive (a
// mask a module just kept on itself, Note [Escaped tensors]) get their real
// values first, or the eager run would read tracing tensors. Not when the
// partial graph writes inputs in place, which the eager run writes again.
void Tracer::give_values_before_abandoning() {
  if (!latest_update_.empty()) return;
  const Escaped kept = find_escaped({}, {}, /*without_history=*/true);
  if (kept.tensors.empty()) return;
  give_escaped_values(run_segment(kept.values), kept, 0);
  // The eager run draws its random numbers from where this segment began, as it would have.
  random_stream::rewind(random_position_);
}

void Tracer::materialize(const Tensor& t, const char* reason) {
  (void)t;
  break_graph(std::string("the function reads a tensor's values (") + reason + ")");
}

void Tracer::break_graph(const std::string& reason) {
  GraphBreak br{reason, options_.location ? options_.location() : std::string()};
  // Values with autograd history would lose it across the break.
  for (const auto& [raw, known] : known_) {
    std::shared_ptr<TensorImpl> impl = known.impl.lock();
    if (impl != nullptr && impl->keys().has(DispatchKey::Trace) && Tensor(impl).requires_grad() &&
        !Tensor(impl).is_leaf()) {
      give_values_before_abandoning();
      throw TraceUnsupported("graph break at " + (br.location.empty() ? std::string("an unknown line") : br.location) +
                             ": " + br.reason + "; a compiled training graph cannot break");
    }
  }
  if (options_.fullgraph) {
    throw_error(ErrorKind::Runtime, "compile(fullgraph=True): graph break at " +
                                        (br.location.empty() ? std::string("an unknown line") : br.location) + ": " +
                                        br.reason);
  }
  breaks_.push_back(br);
  // Every tracing tensor still alive leaves the segment as a real tensor.
  std::vector<std::shared_ptr<TensorImpl>> live;
  std::vector<int> outputs;
  for (auto& [raw, known] : known_) {
    std::shared_ptr<TensorImpl> impl = known.impl.lock();
    if (impl == nullptr || !impl->keys().has(DispatchKey::Trace) || updated_.count(impl.get()) != 0) continue;
    live.push_back(impl);
    outputs.push_back(known.value);
  }
  const std::vector<Tensor> real = run_segment(outputs);
  for (size_t i = 0; i < live.size(); ++i) live[i]->set_data_from(*real[i].impl());
  captured_.clear();
  start_segment();
}

std::vector<Tensor> Tracer::finish(const std::vector<Tensor>& outputs, EagerBackward eager_backward) {
  // A tensor read from outside and returned is a graph input the plan
  // hands back; so every later call returns what this one does.
  std::vector<int> ids;
  for (const Tensor& t : outputs) ids.push_back(value_of(t));
  // A traced output with autograd history makes this a training graph
  // (Note [Compiled training]).
  for (const Tensor& t : outputs) training_ |= dispatch::is_tracing(t) && t.requires_grad() && !t.is_leaf();
  if (training_ && !breaks_.empty()) {
    throw TraceUnsupported("graph break at " + breaks_.front().location + ": " + breaks_.front().reason +
                           "; a compiled training graph cannot break");
  }
  if (training_) return finish_training(outputs, ids, std::move(eager_backward));
  const Escaped escaped = find_escaped(outputs, ids, /*without_history=*/false);
  if (escaped.tensors.empty()) return run_segment(ids);
  std::vector<int> all = ids;
  all.insert(all.end(), escaped.values.begin(), escaped.values.end());
  return give_escaped_values(run_segment(all), escaped, ids.size());
}

// Note [Escaped tensors]: a tensor the function made and kept elsewhere
// (an optimizer's lazily made state, a mask a module caches on itself)
// outlives the trace as a tracing tensor. This call gives it its real
// value, computed as an extra output; a later call must trace again, since
// its Python reads that state instead of making it. What the caller holds
// does not count: the outputs and the tensors they view, the arguments,
// and inputs written in place (Note [Input updates]). A training trace
// looks once its traced backward has run without retain_graph, which frees
// what the derivatives saved, so what is still alive was kept; there only
// tensors without autograd history get their value (one with history would
// keep a traced graph), and using another later is an error.
Tracer::Escaped Tracer::find_escaped(const std::vector<Tensor>& held, const std::vector<int>& held_values,
                                     bool without_history) const {
  std::unordered_set<const TensorImpl*> held_impls;
  for (const Tensor& t : held) {
    for (const TensorImpl* impl = t.defined() ? t.impl() : nullptr; impl != nullptr; impl = impl->view_base().get()) {
      held_impls.insert(impl);
    }
  }
  Escaped escaped;
  for (const auto& [raw, known] : known_) {
    std::shared_ptr<TensorImpl> impl = known.impl.lock();
    if (impl == nullptr || !impl->keys().has(DispatchKey::Trace) || updated_.count(impl.get()) != 0 ||
        held_impls.count(impl.get()) != 0) {
      continue;
    }
    if (graph_.values[static_cast<size_t>(known.value)].origin != ValueOrigin::Node) continue;
    if (std::find(held_values.begin(), held_values.end(), known.value) != held_values.end()) continue;
    if (without_history && Tensor(impl).grad_fn() != nullptr) continue;
    escaped.tensors.push_back(impl);
    escaped.values.push_back(known.value);
  }
  return escaped;
}

std::vector<Tensor> Tracer::give_escaped_values(std::vector<Tensor> results, const Escaped& escaped,
                                                size_t num_outputs) {
  escaped_ = true;
  for (size_t i = 0; i < escaped.tensors.size(); ++i) {
    escaped.tensors[i]->set_data_from(*results[num_outputs + i].impl());
  }
  results.resize(num_outputs);
  return results;
}

std::vector<Tensor> Tracer::finish_training(const std::vector<Tensor>& outputs, const std::vector<int>& ids,
                                            EagerBackward eager_backward) {
  JointGraph joint;
  std::vector<int> forward_outputs = ids;
  add_input_updates(forward_outputs);
  joint.num_forward_outputs = static_cast<int>(forward_outputs.size());
  joint.tangent_of_output.assign(ids.size(), -1);
  std::vector<Tensor> differentiable, tangents;
  std::vector<int> tangent_ids;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& t = outputs[k];
    const int id = ids[k];
    const Value& v = graph_.values[static_cast<size_t>(id)];
    // An argument returned as it is keeps its own history.
    if (v.origin == ValueOrigin::Input || !t.requires_grad() || !is_floating(v.dtype)) continue;
    const TensorMeta meta{v.sizes, v.dtype, contiguous_strides(v.sizes), 0};
    const int tangent = new_value(meta, v.device, -1);
    Value& tv = graph_.values[static_cast<size_t>(tangent)];
    tv.origin = ValueOrigin::Input;
    tv.input_index = static_cast<int>(graph_.inputs.size());
    graph_.inputs.push_back(tangent);
    tangent_ids.push_back(tangent);
    joint.tangent_of_output[k] = static_cast<int>(tangents.size());
    const size_t nbytes = static_cast<size_t>(storage_nbytes(meta.sizes, itemsize(meta.dtype)));
    tangents.push_back(tracing_tensor(tangent, storage_without_memory(nbytes, v.device)));
    differentiable.push_back(t);
  }
  // The primals that get a gradient: arguments through their tracing
  // tensors, captured tensors as they are.
  const size_t num_inputs_before = graph_.inputs.size() - tangent_ids.size();
  std::vector<Tensor> wrt;
  std::vector<int> wrt_input;
  std::vector<Tensor> argument_tracing(num_inputs_before);
  for (const auto& [input, tracing] : differentiable_arguments_) argument_tracing[static_cast<size_t>(input)] = tracing;
  for (size_t i = 0; i < num_inputs_before; ++i) {
    if (argument_tracing[i].defined()) {
      wrt.push_back(argument_tracing[i]);
    } else if (bindings_[i].requires_grad()) {
      wrt.push_back(bindings_[i]);
    } else {
      continue;
    }
    wrt_input.push_back(static_cast<int>(i));
  }
  if (differentiable.empty() || wrt.empty()) {
    // Nothing to differentiate: the tangents go unused.
    training_ = false;
    return run_segment(ids);
  }
  const std::vector<Tensor> grads =
      autograd::grad(differentiable, wrt, tangents, /*retain_graph=*/false, /*create_graph=*/false,
                     /*allow_unused=*/true);
  // The traced backward freed what the derivatives saved (Note [Escaped tensors]); what the function made and
  // kept becomes an output of the forward.
  std::vector<Tensor> held = outputs;
  std::vector<int> held_values = ids;
  for (const Tensor& g : grads) {
    if (!g.defined()) continue;
    held.push_back(g);
    held_values.push_back(value_of(g));
  }
  const Escaped escaped = find_escaped(held, held_values, /*without_history=*/true);
  if (!escaped.tensors.empty()) {
    forward_outputs = ids;
    forward_outputs.insert(forward_outputs.end(), escaped.values.begin(), escaped.values.end());
    add_input_updates(forward_outputs);
    joint.num_forward_outputs = static_cast<int>(forward_outputs.size());
    joint.tangent_of_output.resize(ids.size() + escaped.values.size(), -1);
  }

  std::vector<int> joint_outputs = forward_outputs;
  std::vector<int> gradient_at(wrt.size(), -1);
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) continue;
    gradient_at[i] = static_cast<int>(joint_outputs.size()) - joint.num_forward_outputs;
    joint_outputs.push_back(value_of(grads[i]));
  }
  // Tensors the derivatives read from outside are primals too, after the
  // tangents.
  std::vector<bool> is_tangent(graph_.values.size(), false);
  for (int t : tangent_ids) is_tangent[static_cast<size_t>(t)] = true;
  std::vector<int> primal_position(graph_.inputs.size(), -1);
  int num_primals = 0;
  for (size_t i = 0; i < graph_.inputs.size(); ++i) {
    const bool tangent = is_tangent[static_cast<size_t>(graph_.inputs[i])];
    joint.roles.push_back(tangent ? JointInput::Tangent : JointInput::Primal);
    if (!tangent) primal_position[i] = num_primals++;
  }
  joint.gradient_of_primal.assign(static_cast<size_t>(num_primals), -1);
  for (size_t i = 0; i < wrt.size(); ++i) {
    joint.gradient_of_primal[static_cast<size_t>(primal_position[static_cast<size_t>(wrt_input[i])])] = gradient_at[i];
  }
  graph_.outputs = joint_outputs;
  joint.graph = graph_;

  training_plan_ = std::make_shared<const TrainingPlan>(joint, options_.plan);
  segments_.push_back(training_plan_->forward());
  segments_.push_back(training_plan_->backward());
  std::vector<Tensor> results =
      run_plan([&] { return training_plan_->run(bindings_, std::move(eager_backward)); });
  if (escaped.tensors.empty()) return results;
  return give_escaped_values(std::move(results), escaped, ids.size());
}

namespace {

void trace_step(const Op& op, OpCall& call) {
  Tracer* tracer = Tracer::current();
  if (tracer == nullptr) {
    throw_error(ErrorKind::Runtime, op.name() +
                                        ": a tensor of a traced graph was used outside the compiled "
                                        "function that traced it");
  }
  tracer->record(op, call);
}

void fresh_tensor(const Tensor& t) {
  if (Tracer* tracer = Tracer::current()) tracer->note_fresh(t);
}

// Note [Fused composites in traces]: convolutions, pooling, losses and LSTM
// layers keep the backend's fused kernel as an extern call. Softmax,
// log_softmax and layer_norm (and their backward ops) keep it too, unless
// pointwise ops of the graph make their input: then they decompose into the
// ops fusion takes, and the prologue (a residual add, a scaling of attention
// scores), the reductions and any pointwise epilogue become one generated
// kernel. A fused kernel that reads a line once is as fast as a generated one could
// be on its own, and a backend without one always decomposes.
bool keeps_composite(const Op& op, const Tensor& x) {
  if (op.kernel(x.device().type, x.dtype()) == nullptr) return false;
  switch (static_cast<OpId>(op.index())) {
    case OpId::Softmax:
    case OpId::LogSoftmax:
    case OpId::LayerNorm:
    case OpId::SoftmaxBackward:
    case OpId::LogSoftmaxBackward:
    case OpId::LayerNormBackward: {
      const Tracer* tracer = Tracer::current();
      return tracer == nullptr || (tracer->options().fused_composites && !tracer->made_by_pointwise(x));
    }
    case OpId::Gelu:
    case OpId::GeluBackward:
      return false;  // pointwise: its decomposition fuses with its neighbours
    case OpId::MmBias:
      return false;  // its bias add fuses with the pointwise ops after it (Note [mm_bias])
    case OpId::LstmLayer:
    case OpId::LstmLayerWorkspaceBytes:
    case OpId::LstmLayerBackward: {
      // One extern call runs the whole recurrence, as in eager mode: traced
      // step by step, each step still waits on its own small product
      // (Note [Ops answered from shapes in traces]). Export decomposes the
      // layer into the ops its graph check takes.
      const Tracer* tracer = Tracer::current();
      return tracer == nullptr || tracer->options().fused_composites;
    }
    default:
      return true;
  }
}

void materialize(const Tensor& t, const char* reason) {
  Tracer* tracer = Tracer::current();
  if (tracer == nullptr) {
    throw_error(ErrorKind::Runtime, std::string("cannot read the values of a tensor of a traced graph outside the "
                                                "compiled function that traced it (") +
                                        reason + ")");
  }
  tracer->materialize(t, reason);
}

void alias(const Tensor& t, const Tensor& same) {
  if (Tracer* tracer = Tracer::current()) tracer->alias(t, same);
}

const dispatch::TraceHooks kHooks{&fresh_tensor, &keeps_composite, &materialize, &alias};

}  // namespace

void install_trace_step() {
  static const bool installed = [] {
    (void)dispatch::OpRegistry::get();  // installs the runtime's own steps first
    dispatch::set_step(DispatchKey::Trace, &trace_step);
    dispatch::set_trace_hooks(&kHooks);
    return true;
  }();
  (void)installed;
}

}  // namespace ember::compile
