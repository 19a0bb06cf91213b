#include "dispatch/dispatcher.h"

#include <atomic>
#include <memory>
#include <string>

#include "dispatch/step_table.h"
#include "dispatch/trace_hooks.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "profiler/profiler_state.h"
#include "profiler/ranges.h"

namespace ember::dispatch {
namespace {

std::string describe_devices(const Op& op, const OpCall& call) {
  std::string s = op.name() + ": expected all tensors to be on the same device, but found tensors on";
  for (int64_t i = 0; i < call.num_inputs; ++i) s += (i ? ", " : " ") + call.inputs[i].device().str();
  for (int64_t i = 0; i < call.num_outputs; ++i) {
    if (call.outputs[i].defined()) s += " and output on " + call.outputs[i].device().str();
  }
  return s;
}

Device call_device(const Op& op, const OpCall& call) {
  const Tensor* first = call.num_inputs > 0 ? &call.inputs[0] : nullptr;
  for (int64_t i = 0; first == nullptr && i < call.num_outputs; ++i) {
    if (call.outputs[i].defined()) first = &call.outputs[i];
  }
  if (first == nullptr) {
    throw_error(ErrorKind::Runtime, op.name() + ": no tensor argument to take the device from");
  }
  const Device device = first->device();
  for (int64_t i = 0; i < call.num_inputs; ++i) {
    if (call.inputs[i].device() != device) throw_error(ErrorKind::Runtime, describe_devices(op, call));
  }
  for (int64_t i = 0; i < call.num_outputs; ++i) {
    if (call.outputs[i].defined() && call.outputs[i].device() != device) {
      throw_error(ErrorKind::Runtime, describe_devices(op, call));
    }
  }
  return device;
}

// A view op's "kernel": a new TensorImpl over input 0's storage with the
// layout the meta function gives.
void run_view(const Op& op, OpCall& call) {
  TensorMeta meta;
  op.schema().meta(call, &meta);
  const Tensor& base = call.inputs[0];
  auto impl =
      std::make_shared<TensorImpl>(base.impl()->storage(), meta.dtype, meta.sizes, meta.strides, meta.storage_offset);
  impl->set_view_base(base.impl_ptr());
  call.outputs[0] = Tensor(std::move(impl));
}

DispatchKeySet call_keys(const OpCall& c) {
  DispatchKeySet keys;
  for (int64_t i = 0; i < c.num_inputs; ++i) keys = keys | c.inputs[i].impl()->keys();
  for (int64_t i = 0; i < c.num_outputs; ++i) {
    if (c.outputs[i].defined()) keys = keys | c.outputs[i].impl()->keys();
  }
  const LocalDispatchKeys& local = local_dispatch_keys();
  return (keys | local.included) - local.excluded;
}

void run_steps(const Op& op, OpCall& c);

// The device an op's range is shown on: that of its first tensor, none for
// a factory before its output exists. No check here: run_steps does those.
Device profiled_device(const OpCall& c) {
  if (c.num_inputs > 0 && c.inputs[0].defined()) return c.inputs[0].device();
  for (int64_t i = 0; i < c.num_outputs; ++i) {
    if (c.outputs[i].defined()) return c.outputs[i].device();
  }
  return Device(-1, 0);
}

[[gnu::noinline]] void call_profiled(const Op& op, OpCall& c) {
  profiler::OpScope scope(op.name().c_str(), &c, c.inputs, c.num_inputs, profiled_device(c));
  run_steps(op, c);
}

}  // namespace

// When off, the profiler costs this one load and branch (Note [Profiling flag]).
void call(const Op& op, OpCall& c) {
  if (profiler::profiling_on()) [[unlikely]] {
    // A step's redispatch of this call is the same event (Note [One event per op call]).
    if (!profiler::OpScope::recording(&c)) {
      call_profiled(op, c);
      return;
    }
  }
  run_steps(op, c);
}

namespace {

void run_steps(const Op& op, OpCall& c) {
  const DispatchKeySet keys = call_keys(c);
  DispatchKeySet functionality = keys - keys.backends();
  while (!functionality.empty()) {
    const auto key = static_cast<DispatchKey>(functionality.highest());
    if (const StepFn run = step(key)) {
      run(op, c);
      return;
    }
    functionality = functionality - DispatchKeySet::of(key);
  }
  if (keys.backends().empty()) {
    throw_error(ErrorKind::Runtime, op.name() + ": no tensor argument to take the device from");
  }
  // A view has one input, so no devices to reconcile.
  if (op.schema().is_view()) {
    run_view(op, c);
    return;
  }
  backend_step()(op, c, call_device(op, c));
}

}  // namespace

namespace {

void call_with_outputs(const Op& op, const Tensor* inputs, size_t num_inputs, std::span<Tensor> outputs,
                       std::initializer_list<ember_attr> attrs) {
  OpCall c;
  c.inputs = inputs;
  c.num_inputs = static_cast<int64_t>(num_inputs);
  c.outputs = outputs.data();
  c.num_outputs = static_cast<int64_t>(outputs.size());
  c.attrs = attrs.begin();
  c.num_attrs = static_cast<int64_t>(attrs.size());
  call(op, c);
}

}  // namespace

Tensor call_single(const Op& op, std::initializer_list<Tensor> inputs, std::initializer_list<ember_attr> attrs) {
  Tensor out;
  call_with_outputs(op, inputs.begin(), inputs.size(), {&out, 1}, attrs);
  return out;
}

std::vector<Tensor> call_outputs(const Op& op, std::initializer_list<Tensor> inputs, int64_t num_outputs,
                                 std::initializer_list<ember_attr> attrs) {
  std::vector<Tensor> outputs(static_cast<size_t>(num_outputs));
  call_with_outputs(op, inputs.begin(), inputs.size(), outputs, attrs);
  return outputs;
}

Tensor call_unary(const Op& op, const Tensor& input, std::initializer_list<ember_attr> attrs) {
  Tensor out;
  call_with_outputs(op, &input, 1, {&out, 1}, attrs);
  return out;
}

void call_into(const Op& op, std::initializer_list<Tensor> inputs, Tensor& output,
               std::initializer_list<ember_attr> attrs) {
  call_into(op, inputs, {&output, 1}, attrs);
}

void call_into(const Op& op, std::initializer_list<Tensor> inputs, std::span<Tensor> outputs,
               std::initializer_list<ember_attr> attrs) {
  for (const Tensor& output : outputs) output.impl()->storage()->check_writable(op.name());
  call_with_outputs(op, inputs.begin(), inputs.size(), outputs, attrs);
  for (const Tensor& output : outputs) output.impl()->storage()->bump_version();
}

namespace {
std::atomic<bool> g_composite_kernels{true};
thread_local int t_decomposition_depth = 0;
}  // namespace

bool use_composite_kernel(const Op& op, const Tensor& x) {
  if (is_tracing(x)) {
    const TraceHooks* hooks = trace_hooks();
    return hooks != nullptr && hooks->keeps_composite != nullptr && hooks->keeps_composite(op, x);
  }
  const Device device = x.device();
  return g_composite_kernels.load(std::memory_order_relaxed) && t_decomposition_depth == 0 && !device.is_meta() &&
         op.kernel(device.type, x.dtype()) != nullptr;
}

DecompositionGuard::DecompositionGuard() { ++t_decomposition_depth; }
DecompositionGuard::~DecompositionGuard() { --t_decomposition_depth; }

ember_attr attr_int(const char* name, int64_t value) {
  ember_attr a{};
  a.struct_size = sizeof(ember_attr);
  a.name = name;
  a.kind = EMBER_ATTR_INT;
  a.int_value = value;
  return a;
}

ember_attr attr_float(const char* name, double value) {
  ember_attr a = attr_int(name, 0);
  a.kind = EMBER_ATTR_FLOAT;
  a.float_value = value;
  return a;
}

ember_attr attr_bool(const char* name, bool value) {
  ember_attr a = attr_int(name, value ? 1 : 0);
  a.kind = EMBER_ATTR_BOOL;
  return a;
}

ember_attr attr_ints(const char* name, IntArrayRef values) {
  ember_attr a = attr_int(name, 0);
  a.kind = EMBER_ATTR_INTS;
  a.ints = values.data();
  a.num_ints = static_cast<int64_t>(values.size());
  return a;
}

}  // namespace ember::dispatch

namespace ember {

void set_composite_kernels_enabled(bool enabled) {
  dispatch::g_composite_kernels.store(enabled, std::memory_order_relaxed);
}

bool composite_kernels_enabled() { return dispatch::g_composite_kernels.load(std::memory_order_relaxed); }

}  // namespace ember
