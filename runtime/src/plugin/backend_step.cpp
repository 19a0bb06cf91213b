// The backend step (Note [Dispatch steps]): outputs from the op's meta
// function, then the kernel of the plugin that provides the device.
#include "plugin/backend_step.h"

#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/dlpack.h"
#include "core/elementwise_layout.h"
#include "core/logging.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/kernel_timing.h"
#include "plugin/kernel_watchdog.h"
#include "plugin/status.h"
#include "plugin/stream_state.h"
#include "plugin/supports_op.h"

namespace ember::plugin {

using dispatch::BackendKernel;
using dispatch::Op;
using dispatch::OpCall;
using dispatch::OpSchema;
using dispatch::kMaxOutputs;
using dispatch::TensorMeta;

namespace {

// Temporary memory handed to one kernel call, returned when it ends.
struct ScratchBlocks {
  CachingAllocator* allocator = nullptr;
  const std::shared_ptr<const StreamState>* stream = nullptr;  // the kernel's
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
    return make_status(EMBER_STATUS_OUT_OF_MEMORY, e.what());
  }
}

[[noreturn]] void throw_missing_kernel(const Op& op, Device device, DType dtype) {
  const DeviceBackend& backend = backend_for(device);
  throw_error(ErrorKind::NotImplemented, op.name() + ": no kernel for dtype " + std::string(dtype_name(dtype)) +
                                             " on device '" + device.type_name() + "' (plugin '" + backend.plugin_name +
                                             "')");
}

// Calls the kernel under its plugin's thread-safety rule. A kernel that
// throws past its fence becomes a status like any other error, named by the
// caller with its op and plugin (tests/cpp/test_kernel_faults.cpp).
ember_status* invoke(const BackendKernel& kernel, Device device, const ember_kernel_call& kc, uint64_t correlation) {
  const KernelTiming timing(*kernel.backend, device, kc.stream, correlation);
  if (kernel.flags & EMBER_KERNEL_THREAD_SAFE) return call_plugin([&] { return kernel.fn(&kc, kernel.data); });
  std::lock_guard lock(kernel.backend->serial_lock);
  return call_plugin([&] { return kernel.fn(&kc, kernel.data); });
}

// A kernel call that owns what it points at, so that a call the watchdog
// gives up on can go on reading it (Note [Kernel watchdog]).
struct OwnedKernelCall {
  std::vector<Tensor> tensors;  // keep the storages and the sizes and strides the DLTensors point at
  std::vector<DLTensor> dl_tensors;
  std::deque<std::string> attr_names;
  std::deque<std::vector<int64_t>> attr_ints;
  std::vector<ember_attr> attrs;
  std::shared_ptr<const StreamState> stream;
  ScratchBlocks scratch;
  ember_kernel_call kc{};
};

std::shared_ptr<OwnedKernelCall> own(const ember_kernel_call& kc, const OpCall& call,
                                     const std::shared_ptr<const StreamState>& stream, CachingAllocator& allocator) {
  auto owned = std::make_shared<OwnedKernelCall>();
  owned->tensors.assign(call.inputs, call.inputs + call.num_inputs);
  owned->tensors.insert(owned->tensors.end(), call.outputs, call.outputs + call.num_outputs);
  owned->dl_tensors.assign(kc.inputs, kc.inputs + kc.num_inputs);
  owned->dl_tensors.insert(owned->dl_tensors.end(), kc.outputs, kc.outputs + kc.num_outputs);
  for (int64_t i = 0; i < kc.num_attrs; ++i) {
    ember_attr a = kc.attrs[i];
    a.name = owned->attr_names.emplace_back(a.name != nullptr ? a.name : "").c_str();
    if (a.ints != nullptr) a.ints = owned->attr_ints.emplace_back(a.ints, a.ints + a.num_ints).data();
    owned->attrs.push_back(a);
  }
  owned->stream = stream;
  owned->scratch.allocator = &allocator;
  owned->scratch.stream = &owned->stream;
  owned->kc = kc;
  owned->kc.inputs = owned->dl_tensors.data();
  owned->kc.outputs = owned->dl_tensors.data() + kc.num_inputs;
  owned->kc.attrs = owned->attrs.data();
  owned->kc.host_context = &owned->scratch;
  return owned;
}

ember_status* run_watched(const BackendKernel& kernel, Device device, const ember_kernel_call& kc, const OpCall& call,
                          const std::shared_ptr<const StreamState>& stream, uint64_t correlation,
                          std::chrono::milliseconds timeout, const std::string& what) {
  DeviceBackend& backend = *kernel.backend;
  std::shared_ptr<OwnedKernelCall> owned = own(kc, call, stream, backend.allocator(device.index));
  std::optional<ember_status*> status =
      run_with_timeout([owned, &kernel, device, correlation] { return invoke(kernel, device, owned->kc, correlation); },
                       timeout);
  if (status) return *status;
  {
    static std::mutex hung_mutex;  // not the serial lock, which the hung kernel may hold
    std::lock_guard lock(hung_mutex);
    if (!backend.hung.load(std::memory_order_relaxed)) {
      backend.hung_reason =
          "a kernel call, " + what + ", did not return within " + std::to_string(timeout.count()) + " ms";
      backend.hung.store(true, std::memory_order_release);
    }
  }
  log().error("kernel watchdog: {} did not return within {} ms; plugin '{}' is unusable from now on", what,
              timeout.count(), backend.plugin_name);
  return make_status(EMBER_STATUS_DEADLINE_EXCEEDED, "did not return within " + std::to_string(timeout.count()) +
                                                         " ms (the kernel watchdog); the plugin is unusable from now on");
}

void run_kernel(const Op& op, OpCall& call, Device device) {
  const OpSchema& schema = op.schema();
  const Tensor& dtype_source =
      schema.dispatch_dtype_from < 0 ? call.outputs[0] : call.inputs[schema.dispatch_dtype_from];
  const DType dtype = dtype_source.dtype();
  const BackendKernel* kernel = op.kernel(device.type, dtype);
  if (kernel == nullptr) throw_missing_kernel(op, device, dtype);
  if (answers_supports_op(*kernel->backend)) {
    check_supports_op(*kernel->backend, device, op.name(), call.inputs, call.num_inputs, call.outputs, call.num_outputs,
                      call.attrs, call.num_attrs);
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
  std::array<DLTensor, kMaxOutputs> outputs;
  for (int64_t i = 0; i < call.num_outputs; ++i) outputs[i] = to_dl_tensor(call.outputs[i], dl_device);

  const auto& stream = current_stream_state(device);
  ember_kernel_call kc{};
  kc.struct_size = sizeof(ember_kernel_call);
  kc.op_name = op.name().c_str();
  kc.device_index = device.index;
  kc.stream = handle_of(stream);
  kc.inputs = inputs;
  kc.num_inputs = call.num_inputs;
  kc.outputs = outputs.data();
  kc.num_outputs = call.num_outputs;
  kc.attrs = call.attrs;
  kc.num_attrs = call.num_attrs;
  kc.allocate_scratch = &allocate_scratch;

  DeviceBackend& backend = *kernel->backend;
  // Built only when needed: a string per call would cost every op.
  const auto what = [&] {
    return op.name() + " (" + std::string(dtype_name(dtype)) + ") on " + device.str() + ", plugin '" +
           backend.plugin_name + "'";
  };
  if (backend.hung.load(std::memory_order_acquire)) {
    throw_error(ErrorKind::Runtime, what() + ": the plugin is unusable: " + backend.hung_reason);
  }
  const uint64_t correlation = kernel_correlation(backend);
  ember_status* status = nullptr;
  if (const auto timeout = kernel_timeout(); timeout.count() > 0) {
    status = run_watched(*kernel, device, kc, call, stream, correlation, timeout, what());
  } else {
    ScratchBlocks scratch;
    scratch.allocator = &backend.allocator(device.index);
    scratch.stream = &stream;
    kc.host_context = &scratch;
    status = invoke(*kernel, device, kc, correlation);
  }
  if (status != nullptr) throw_if_error(status, what());
}

}  // namespace

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

void run_backend_step(const Op& op, OpCall& call, Device device) {
  if (call.num_outputs > kMaxOutputs) throw_error(ErrorKind::Runtime, op.name() + ": too many outputs");
  bool missing = false;
  for (int64_t i = 0; i < call.num_outputs; ++i) missing |= !call.outputs[i].defined();
  if (missing) {
    std::array<TensorMeta, kMaxOutputs> metas;
    op.schema().meta(call, metas.data());
    for (int64_t i = 0; i < call.num_outputs; ++i) {
      if (call.outputs[i].defined()) continue;
      const TensorOptions options(metas[i].dtype, device);
      const DimVector strides = op.schema().output_follows_inputs
                                    ? elementwise_output_strides(call.inputs, call.num_inputs, metas[i].sizes)
                                    : DimVector();
      call.outputs[i] =
          strides.empty() ? empty(metas[i].sizes, options) : empty_strided(metas[i].sizes, strides, options);
    }
  }
  // The meta device stops after allocation: it has no data to compute.
  if (device.is_meta()) return;
  run_kernel(op, call, device);
}

}  // namespace ember::plugin
