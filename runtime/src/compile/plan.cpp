// Plans: a graph's steps over real tensors (Note [Plans]).
#include "compile/plan.h"

#include <algorithm>
#include <unordered_map>

#include "compile/combo.h"
#include "compile/compile_log.h"
#include "compile/fusion.h"
#include "compile/in_place.h"
#include "compile/kernel_compiler.h"
#include "compile/passes.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_id.h"
#include "dispatch/op_registry.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "ops/random_stream.h"
#include "plugin/backend_step.h"
#include "plugin/codegen_provider.h"
#include "plugin/device_registry.h"

namespace ember::compile {

struct Plan::Step {
  int node = -1;  // an extern call of this node, or
  std::shared_ptr<const LoadedKernel> kernel;
  FusedKernel fused;
  std::vector<InPlaceWrite> in_place;  // Note [In-place updates]
  std::vector<int> write_of;           // per buffer: its write in `in_place`, or -1
  std::vector<int> release;  // values whose tensors go after this step
  int position = 0;
};

namespace {

Device graph_device(const Graph& graph) {
  for (const Value& v : graph.values) return v.device;
  return Device();
}

}  // namespace

Plan::Plan(const Graph& graph, const PlanOptions& options) : graph_(simplify(graph)) {
  std::vector<Step> steps;
  std::vector<bool> scheduled(graph_.nodes.size(), false);
  auto add_extern = [&](int n, int position) {
    if (scheduled[static_cast<size_t>(n)]) return;
    scheduled[static_cast<size_t>(n)] = true;
    if (node_kind(graph_, graph_.nodes[static_cast<size_t>(n)]) == NodeKind::View) return;
    Step s;
    s.node = n;
    s.position = position;
    steps.push_back(std::move(s));
  };
  std::string reason;
  const bool generate =
      options.codegen && !graph_.nodes.empty() && generator_for(graph_device(graph_), &reason) != nullptr;
  if (!generate) {
    if (options.codegen && !graph_.nodes.empty()) eager_reasons_.push_back(reason);
    for (size_t n = 0; n < graph_.nodes.size(); ++n) add_extern(static_cast<int>(n), static_cast<int>(n));
  } else {
    PlanOptions fusing = options;
    fusing.parameter_constants = options.dynamic && generator_for(graph_device(graph_), &reason)->reads_ir("1.2");
    Fusion fusion = fuse(graph_, fusing);
    if (graph_device(graph_).is_cpu()) fusion.kernels = combine_kernels(graph_, std::move(fusion.kernels));
    for (size_t n = 0; n < graph_.nodes.size(); ++n) {
      if (node_kind(graph_, graph_.nodes[n]) == NodeKind::Extern) add_extern(static_cast<int>(n), static_cast<int>(n));
    }
    for (FusedKernel& k : fusion.kernels) {
      Step s;
      s.position = k.position;
      s.fused = std::move(k);
      steps.push_back(std::move(s));
    }
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.position < b.position; });
    // Kernels from the commit point on write updates into the caller's
    // tensors (Note [In-place updates]); `plain` keeps their other form.
    std::vector<FusedKernel> plain(steps.size());
    size_t commit = steps.size();
    if (generator_for(graph_device(graph_), &reason)->reads_ir("1.1")) {
      std::vector<StepView> views;
      for (const Step& s : steps) views.push_back(StepView{s.node < 0 ? &s.fused : nullptr, s.node});
      InPlacePlan in_place = plan_in_place(graph_, views);
      commit = in_place.commit;
      for (size_t i = 0; i < steps.size(); ++i) {
        if (in_place.writes[i].empty()) continue;
        plain[i] = steps[i].fused;
        steps[i].in_place = std::move(in_place.writes[i]);
        steps[i].fused = with_inout_buffers(graph_, plain[i], steps[i].in_place);
      }
    }
    std::vector<std::string> whys(steps.size());
    const auto compile = [&](size_t i) {
      const FusedKernel& k = steps[i].fused;
      steps[i].kernel =
          compile_kernel(graph_.values[static_cast<size_t>(k.buffers[0])].device, k, options.deterministic, &whys[i]);
    };
    for (size_t i = 0; i < steps.size(); ++i) {
      if (steps[i].node < 0) compile(i);
    }
    // A kernel that runs eagerly instead may fail after the commit point,
    // and moves the steps: then every kernel writes into new buffers.
    const bool any_eager =
        std::any_of(steps.begin(), steps.end(), [](const Step& s) { return s.node < 0 && s.kernel == nullptr; });
    if (any_eager) {
      for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].in_place.empty()) continue;
        steps[i].in_place.clear();
        steps[i].fused = std::move(plain[i]);
        compile(i);
      }
    }
    std::vector<Step> planned;
    planned.swap(steps);
    for (size_t i = 0; i < planned.size(); ++i) {
      Step& s = planned[i];
      if (s.node >= 0 || s.kernel != nullptr) {
        steps.push_back(std::move(s));
        continue;
      }
      eager_reasons_.push_back(s.fused.name + ": " + whys[i]);
      for (int n : s.fused.nodes) add_extern(n, s.position);
    }
    commit_ = std::min(commit, steps.size());
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.position < b.position; });

  // Lifetimes: a value goes after the last step that reads it.
  std::vector<int> last_use(graph_.values.size(), -1);
  auto root = [&](int v) { return graph_.values[static_cast<size_t>(v)].storage_of; };
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& s = steps[i];
    if (s.kernel) {
      for (int b : s.fused.buffers) last_use[static_cast<size_t>(b)] = static_cast<int>(i);
    } else {
      for (int in : graph_.nodes[static_cast<size_t>(s.node)].inputs) {
        last_use[static_cast<size_t>(in)] = static_cast<int>(i);
        last_use[static_cast<size_t>(root(in))] = static_cast<int>(i);
      }
      for (int out : graph_.nodes[static_cast<size_t>(s.node)].outputs) {
        last_use[static_cast<size_t>(out)] = std::max(last_use[static_cast<size_t>(out)], static_cast<int>(i));
      }
    }
  }
  for (int out : graph_.outputs) {
    last_use[static_cast<size_t>(out)] = static_cast<int>(steps.size());
    last_use[static_cast<size_t>(root(out))] = static_cast<int>(steps.size());
  }
  for (size_t v = 0; v < graph_.values.size(); ++v) {
    if (last_use[v] >= 0 && last_use[v] < static_cast<int>(steps.size())) {
      steps[static_cast<size_t>(last_use[v])].release.push_back(static_cast<int>(v));
    }
    const Value& value = graph_.values[v];
    if (value.origin == ValueOrigin::Node && value.storage_of == static_cast<int>(v)) ++num_buffers_;
  }
  for (Step& s : steps) {
    s.write_of.assign(s.fused.buffers.size(), -1);
    for (size_t w = 0; w < s.in_place.size(); ++w) {
      s.write_of[static_cast<size_t>(s.in_place[w].buffer)] = static_cast<int>(w);
    }
  }
  steps_ = std::move(steps);
  if (num_in_place_updates() == 0) commit_ = steps_.size();
  if (log_enabled(LogTopic::Graph)) {
    log_event(LogTopic::Graph,
              "graph with " + std::to_string(graph_.nodes.size()) + " nodes -> " + std::to_string(num_kernels()) +
                  " kernels, " + std::to_string(num_extern_calls()) + " extern calls\n" + graph_.code(),
              "{\"nodes\":" + std::to_string(graph_.nodes.size()) + ",\"kernels\":" + std::to_string(num_kernels()) +
                  ",\"extern_calls\":" + std::to_string(num_extern_calls()) + "}");
  }
}

Plan::~Plan() = default;

int Plan::num_kernels() const {
  return static_cast<int>(
      std::count_if(steps_.begin(), steps_.end(), [](const Step& s) { return s.kernel != nullptr; }));
}

int Plan::num_extern_calls() const { return static_cast<int>(steps_.size()) - num_kernels(); }

int Plan::num_buffers() const { return num_buffers_; }

int Plan::num_in_place_updates() const {
  int n = 0;
  for (const Step& s : steps_) n += static_cast<int>(s.in_place.size());
  return n;
}

std::vector<std::string> Plan::kernel_sources() const {
  std::vector<std::string> out;
  for (const Step& s : steps_) {
    if (s.kernel) out.push_back(s.fused.ekir);
  }
  return out;
}

namespace {

class Slots {
 public:
  Slots(const Graph& graph, std::span<const Tensor> inputs) : g_(graph), tensors_(graph.values.size()) {
    if (inputs.size() != graph.inputs.size()) {
      throw_error(ErrorKind::Runtime, "compiled graph: expected " + std::to_string(graph.inputs.size()) +
                                          " inputs, got " + std::to_string(inputs.size()));
    }
    for (size_t i = 0; i < inputs.size(); ++i) tensors_[static_cast<size_t>(graph.inputs[i])] = inputs[i];
  }

  const Tensor& get(int id) {
    Tensor& t = tensors_[static_cast<size_t>(id)];
    if (t.defined()) return t;
    const Value& v = g_.values[static_cast<size_t>(id)];
    if (v.origin == ValueOrigin::Constant) {
      t = full({},
               is_floating(v.dtype)     ? Scalar(v.constant)
               : v.dtype == DType::Bool ? Scalar(v.constant != 0.0)
                                        : Scalar(static_cast<int64_t>(v.constant)),
               TensorOptions(v.dtype, v.device));
      return t;
    }
    if (v.storage_of != id) {
      const Tensor& base = get(v.storage_of);
      static const dispatch::Op& as_strided = dispatch::op(dispatch::OpId::AsStrided);
      t = dispatch::call_unary(as_strided, base,
                               {dispatch::attr_ints("sizes", v.sizes), dispatch::attr_ints("strides", v.strides),
                                dispatch::attr_int("storage_offset", base.storage_offset() + v.storage_offset)});
      return t;
    }
    throw_error(ErrorKind::Runtime, "compiled graph: value " + value_name(id) + " was read before it was computed");
  }

  Tensor allocate(int id) {
    const Value& v = g_.values[static_cast<size_t>(id)];
    Tensor t = empty_strided(v.sizes, v.strides, TensorOptions(v.dtype, v.device));
    tensors_[static_cast<size_t>(id)] = t;
    return t;
  }

  void set(int id, Tensor t) { tensors_[static_cast<size_t>(id)] = std::move(t); }
  void release(int id) { tensors_[static_cast<size_t>(id)] = Tensor(); }

 private:
  const Graph& g_;
  std::vector<Tensor> tensors_;
};

bool is_random_fill(const Node& node) {
  return node.op == static_cast<dispatch::OpIndex>(dispatch::OpId::Uniform) ||
         node.op == static_cast<dispatch::OpIndex>(dispatch::OpId::Normal);
}

void run_extern(const Graph& graph, const Node& node, Slots& slots) {
  std::vector<Tensor> inputs;
  inputs.reserve(node.inputs.size());
  for (int in : node.inputs) inputs.push_back(slots.get(in));
  const dispatch::Op& op = graph.op_of(node);
  std::vector<Tensor> outputs(node.outputs.size());
  // Eager lays an elementwise op's output out as its inputs are (Note
  // [Elementwise output layout]); a plan's values keep the layout the trace
  // gave them, which generated kernels read, so such an op writes into its
  // value's own buffer.
  if (node.writes_output || op.schema().output_follows_inputs) {
    for (size_t i = 0; i < node.outputs.size(); ++i) outputs[i] = slots.allocate(node.outputs[i]);
  }
  std::vector<ember_attr> attrs;
  for (const Attribute& a : node.attrs) attrs.push_back(a.view());
  if (is_random_fill(node)) {
    // Note [Random ops in plans]: a random fill draws from the stream at
    // every run, in program order, the counters eager would reserve, so a
    // compiled function gives eager's numbers for the same seed.
    const random_stream::Draw draw = random_stream::reserve(static_cast<uint64_t>(outputs[0].numel()));
    for (ember_attr& a : attrs) {
      if (std::string_view(a.name) == "seed") a.int_value = static_cast<int64_t>(draw.seed);
      if (std::string_view(a.name) == "offset") a.int_value = static_cast<int64_t>(draw.offset);
    }
  }
  dispatch::OpCall call;
  call.inputs = inputs.data();
  call.num_inputs = static_cast<int64_t>(inputs.size());
  call.outputs = outputs.data();
  call.num_outputs = static_cast<int64_t>(outputs.size());
  call.attrs = attrs.data();
  call.num_attrs = static_cast<int64_t>(attrs.size());
  dispatch::call(op, call);
  for (size_t i = 0; i < node.outputs.size(); ++i) slots.set(node.outputs[i], outputs[i]);
}

}  // namespace

namespace {

// At the commit point (Note [In-place updates]): every buffer the remaining
// steps write is made now, and each in-place update gets its target: the
// caller's tensor, or a copy of it where it shares storage with another
// argument. Returns, per input, whether its tensor is written in place.
std::vector<bool> prepare_writes(std::span<const Plan::Step> rest, std::span<const Tensor> inputs, Slots& slots) {
  autograd::NoGradGuard no_grad;
  std::vector<bool> direct(inputs.size(), false);
  std::unordered_map<const Storage*, int> users;  // arguments per storage
  for (const Tensor& t : inputs) ++users[t.impl()->storage().get()];
  for (const Plan::Step& s : rest) {
    for (size_t i = 0; i < s.fused.buffers.size(); ++i) {
      if (s.fused.buffer_is_output[i] && s.write_of[i] < 0) slots.allocate(s.fused.buffers[i]);
    }
    for (const InPlaceWrite& w : s.in_place) {
      const Tensor& target = inputs[static_cast<size_t>(w.input)];
      if (users[target.impl()->storage().get()] > 1) {
        slots.allocate(w.value).copy_(target);
      } else {
        target.impl()->storage()->check_writable("update of a compiled function's input");
        slots.set(w.value, target);
        direct[static_cast<size_t>(w.input)] = true;
      }
    }
  }
  return direct;
}

}  // namespace

std::vector<Tensor> Plan::run(std::span<const Tensor> inputs) const {
  Slots slots(graph_, inputs);
  std::vector<DLTensor> buffers;
  std::vector<bool> direct(inputs.size(), false);
  for (size_t step = 0; step < steps_.size(); ++step) {
    const Step& s = steps_[step];
    if (step == commit_) direct = prepare_writes(std::span(steps_).subspan(step), inputs, slots);
    if (s.kernel) {
      buffers.clear();
      Device device;
      for (size_t i = 0; i < s.fused.buffers.size(); ++i) {
        const int write = s.write_of[i];
        const int id = write >= 0 ? s.in_place[static_cast<size_t>(write)].value : s.fused.buffers[i];
        const bool fresh = write < 0 && s.fused.buffer_is_output[i] && step < commit_;
        const Tensor t = fresh ? slots.allocate(id) : slots.get(id);
        device = t.device();
        const DLDeviceType type = plugin::backend_for(device).api->dl_device_type;
        buffers.push_back(plugin::to_dl_tensor(t, DLDevice{type, device.index}));
      }
      s.kernel->launch(device, buffers, s.fused.params);
    } else {
      run_extern(graph_, graph_.nodes[static_cast<size_t>(s.node)], slots);
    }
    for (int v : s.release) slots.release(v);
  }
  // Updated values go into the caller's tensors (Note [Input updates]),
  // unless a kernel wrote them there (Note [In-place updates]), and the
  // program's results name those tensors.
  // The trace accepted only updates eager made without history (a leaf
  // that requires grad is written under no_grad), so none is recorded.
  std::vector<int> updated_into(graph_.outputs.size(), -1);
  autograd::NoGradGuard no_grad;
  for (const InputUpdate& u : graph_.input_updates) {
    Tensor target = inputs[static_cast<size_t>(u.input)];
    if (direct[static_cast<size_t>(u.input)]) {
      target.impl()->storage()->bump_version();
    } else {
      target.copy_(slots.get(graph_.outputs[static_cast<size_t>(u.output)]));
    }
    updated_into[static_cast<size_t>(u.output)] = u.input;
  }
  std::vector<Tensor> outputs;
  outputs.reserve(graph_.outputs.size() - graph_.input_updates.size());
  for (size_t i = 0; i < graph_.outputs.size(); ++i) {
    if (updated_into[i] >= 0) continue;
    const int value = graph_.outputs[i];
    const Tensor* updated = nullptr;
    for (const InputUpdate& u : graph_.input_updates) {
      if (graph_.outputs[static_cast<size_t>(u.output)] == value) updated = &inputs[static_cast<size_t>(u.input)];
    }
    outputs.push_back(updated != nullptr ? *updated : slots.get(value));
  }
  return outputs;
}

}  // namespace ember::compile
