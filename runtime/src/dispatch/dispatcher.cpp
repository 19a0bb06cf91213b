#include "dispatch/dispatcher.h"

#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "autograd/derivatives.h"
#include "core/dlpack.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "plugin/device_registry.h"
#include "plugin/status.h"
#include "plugin/stream_state.h"
#include "plugin/supports_op.h"

namespace ember::dispatch {
namespace {

// Temporary memory handed to one kernel call, returned when it ends.
struct ScratchBlocks {
  plugin::CachingAllocator* allocator = nullptr;
  const std::shared_ptr<const plugin::StreamState>* stream = nullptr;  // the kernel's
  std::vector<void*> blocks;
  ~ScratchBlocks() {
    for (void* p : blocks) allocator->release(p);
  }
};

ember_status* allocate_scratch(const ember_kernel_call* call, size_t size, void** ptr) {
  auto* scratch = static_cast<ScratchBlocks*>(call->host_context);
  try {
    *ptr = scratch->allocator->allocate(size, *scratch->stream);
    scratch->blocks.push_back(*ptr);
    return nullptr;
  } catch (const std::exception& e) {
    return plugin::make_status(EMBER_STATUS_OUT_OF_MEMORY, e.what());
  }
}

DLTensor to_dl_tensor(const Tensor& t, DLDevice device) {
  TensorImpl* impl = t.impl();
  DLTensor dl;
  dl.data = impl->storage()->data();
  dl.device = device;
  dl.ndim = static_cast<int32_t>(impl->sizes().size());
  dl.dtype = to_dl_dtype(impl->dtype());
  dl.shape = const_cast<int64_t*>(impl->sizes().data());
  dl.strides = const_cast<int64_t*>(impl->strides().data());
  dl.byte_offset = static_cast<uint64_t>(impl->storage_offset()) * itemsize(impl->dtype());
  return dl;
}

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

[[noreturn]] void throw_missing_kernel(const Op& op, Device device, DType dtype) {
  const plugin::DeviceBackend& backend = plugin::backend_for(device);
  throw_error(ErrorKind::NotImplemented,
              op.name() + ": no kernel for dtype " + std::string(dtype_name(dtype)) + " on device '" +
                  device.type_name() + "' (plugin '" + backend.plugin_name + "')");
}

void run_kernel(const Op& op, OpCall& call, Device device) {
  const OpSchema& schema = op.schema();
  const Tensor& dtype_source =
      schema.dispatch_dtype_from < 0 ? call.outputs[0] : call.inputs[schema.dispatch_dtype_from];
  const DType dtype = dtype_source.dtype();
  const BackendKernel* kernel = op.kernel(device.type, dtype);
  if (kernel == nullptr) throw_missing_kernel(op, device, dtype);
  if (plugin::answers_supports_op(*kernel->backend)) {
    plugin::check_supports_op(*kernel->backend, device, op.name(), call.inputs, call.num_inputs, call.outputs,
                              call.num_outputs, call.attrs, call.num_attrs);
  }

  const DLDevice dl_device{kernel->backend->api->dl_device_type, device.index};
  constexpr int64_t kInline = 8;
  std::array<DLTensor, kInline> inline_inputs;
  std::vector<DLTensor> heap_inputs;
  DLTensor* inputs = inline_inputs.data();
  if (call.num_inputs > kInline) {
    heap_inputs.resize(static_cast<size_t>(call.num_inputs));
    inputs = heap_inputs.data();
  }
  for (int64_t i = 0; i < call.num_inputs; ++i) inputs[i] = to_dl_tensor(call.inputs[i], dl_device);
  std::array<DLTensor, kInline> outputs;
  if (call.num_outputs > kInline) {
    throw_error(ErrorKind::Runtime, op.name() + ": too many outputs");
  }
  for (int64_t i = 0; i < call.num_outputs; ++i) outputs[i] = to_dl_tensor(call.outputs[i], dl_device);

  const auto& stream = plugin::current_stream_state(device);
  ScratchBlocks scratch;
  scratch.allocator = &kernel->backend->allocator(device.index);
  scratch.stream = &stream;
  ember_kernel_call kc{};
  kc.struct_size = sizeof(ember_kernel_call);
  kc.op_name = op.name().c_str();
  kc.device_index = device.index;
  kc.stream = plugin::handle_of(stream);
  kc.inputs = inputs;
  kc.num_inputs = call.num_inputs;
  kc.outputs = outputs.data();
  kc.num_outputs = call.num_outputs;
  kc.attrs = call.attrs;
  kc.num_attrs = call.num_attrs;
  kc.allocate_scratch = &allocate_scratch;
  kc.host_context = &scratch;

  ember_status* status = nullptr;
  if (kernel->flags & EMBER_KERNEL_THREAD_SAFE) {
    status = kernel->fn(&kc, kernel->data);
  } else {
    std::lock_guard<std::mutex> lock(kernel->backend->serial_lock);
    status = kernel->fn(&kc, kernel->data);
  }
  if (status != nullptr) {
    plugin::throw_if_error(status, op.name() + " (" + std::string(dtype_name(dtype)) + ") on " + device.str() +
                                       ", plugin '" + kernel->backend->plugin_name + "'");
  }
}

// The backend step: outputs from the meta function, then the kernel (the
// meta device stops after allocation: it has no data to compute).
void run_backend(const Op& op, OpCall& call, Device device) {
  constexpr int kMaxOutputs = 4;
  bool missing = false;
  for (int64_t i = 0; i < call.num_outputs; ++i) missing |= !call.outputs[i].defined();
  if (missing) {
    std::array<TensorMeta, kMaxOutputs> metas;
    op.schema().meta(call, metas.data());
    for (int64_t i = 0; i < call.num_outputs; ++i) {
      if (!call.outputs[i].defined()) call.outputs[i] = empty(metas[i].sizes, TensorOptions(metas[i].dtype, device));
    }
  }
  if (device.is_meta()) return;
  run_kernel(op, call, device);
}

}  // namespace

void call(const Op& op, OpCall& c) {
  DispatchKeySet keys;
  for (int64_t i = 0; i < c.num_inputs; ++i) keys = keys | c.inputs[i].impl()->keys();
  for (int64_t i = 0; i < c.num_outputs; ++i) {
    if (c.outputs[i].defined()) keys = keys | c.outputs[i].impl()->keys();
  }
  const LocalDispatchKeys& local = local_dispatch_keys();
  keys = (keys | local.included) - local.excluded;
  // Trace and Python get their steps in later layers.
  if (keys.has(DispatchKey::Autograd)) {
    autograd::run_autograd_step(op, c);
    return;
  }
  if (keys.backends().empty()) {
    throw_error(ErrorKind::Runtime, op.name() + ": no tensor argument to take the device from");
  }
  run_backend(op, c, call_device(op, c));
}

namespace {

void call_one_output(const Op& op, std::initializer_list<Tensor> inputs, Tensor& output,
                     std::initializer_list<ember_attr> attrs) {
  OpCall c;
  c.inputs = inputs.begin();
  c.num_inputs = static_cast<int64_t>(inputs.size());
  c.outputs = &output;
  c.num_outputs = 1;
  c.attrs = attrs.begin();
  c.num_attrs = static_cast<int64_t>(attrs.size());
  call(op, c);
}

}  // namespace

Tensor call_single(const Op& op, std::initializer_list<Tensor> inputs, std::initializer_list<ember_attr> attrs) {
  Tensor out;
  call_one_output(op, inputs, out, attrs);
  return out;
}

void call_into(const Op& op, std::initializer_list<Tensor> inputs, Tensor& output,
               std::initializer_list<ember_attr> attrs) {
  output.impl()->storage()->check_writable(op.name());
  call_one_output(op, inputs, output, attrs);
  output.impl()->storage()->bump_version();
}

namespace {
std::atomic<bool> g_composite_kernels{true};
thread_local int t_decomposition_depth = 0;
}  // namespace

bool use_composite_kernel(const Op& op, const Tensor& x) {
  const Device device = x.device();
  return g_composite_kernels.load(std::memory_order_relaxed) && t_decomposition_depth == 0 &&
         !device.is_meta() && op.kernel(device.type, x.dtype()) != nullptr;
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
