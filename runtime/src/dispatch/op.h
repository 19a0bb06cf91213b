#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include <ember/ember_plugin.h>

#include "ember/device.h"
#include "ember/dim_vector.h"
#include "ember/dtype.h"
#include "ember/tensor.h"

namespace ember::plugin {
struct DeviceBackend;
}

namespace ember::dispatch {

// Shape and dtype of an output, as a meta function computes it. A view op's
// meta function also gives the strides and storage offset of the view over
// its input's storage.
struct TensorMeta {
  DimVector sizes;
  DType dtype = DType::Float32;
  DimVector strides;
  int64_t storage_offset = 0;
};

// The arguments of one op call as the dispatcher sees them. Outputs that are
// undefined are allocated by the backend step from the meta function; defined
// outputs (in-place ops) are written as they are.
struct OpCall {
  const Tensor* inputs = nullptr;
  int64_t num_inputs = 0;
  Tensor* outputs = nullptr;
  int64_t num_outputs = 0;
  const ember_attr* attrs = nullptr;
  int64_t num_attrs = 0;

  const ember_attr* find_attr(std::string_view name) const;
  // The attribute's value; throws naming the op if it is missing.
  int64_t attr_int(std::string_view op, std::string_view name) const;
  IntArrayRef attr_ints(std::string_view op, std::string_view name) const;
};

// Computes output metadata without touching data. Validation of arguments
// happens in the op's public function, before dispatch.
using MetaFn = void (*)(const OpCall& call, TensorMeta* outputs);

// A primitive is what backends implement. A composite has a decomposition in
// the core; a backend kernel for it is an optional fused override. A view is
// the core's own aliasing of input 0's storage: no backend takes part.
enum class OpKind : uint8_t { Primitive, Composite, View };

// Dense index of an op in the registry; the ops layer names them (OpId in
// ops/op_id.h). Names are for the ABI and messages only.
using OpIndex = uint16_t;

// The most outputs an op of the catalogue may have (lstm_layer_backward has
// six); the catalogue refuses a record with more, so that the steps that
// hold an op's outputs in fixed arrays never overflow them.
inline constexpr int kMaxOutputs = 8;

struct OpSchema {
  std::string name;
  OpIndex index = 0;
  int num_inputs = 0;  // -1: any number (cat)
  int num_outputs = 1;
  MetaFn meta = nullptr;
  // Which tensor's dtype selects the kernel: an input index, or -1 for
  // output 0 (factories).
  int dispatch_dtype_from = 0;
  OpKind kind = OpKind::Primitive;
  // The ABI minor whose catalogue introduced the op (Note [Versioned
  // catalogue] in plugin/host_api.cpp); sdk/CHANGELOG.md lists each minor's ops.
  int abi_minor = 0;
  // An elementwise op: a missing output is laid out as its inputs are
  // (Note [Elementwise output layout] in core/elementwise_layout.cpp).
  bool output_follows_inputs = false;

  bool is_composite() const { return kind == OpKind::Composite; }
  bool is_view() const { return kind == OpKind::View; }
};

// A plugin's kernel for one (op, device type, dtype).
struct BackendKernel {
  ember_kernel_fn fn = nullptr;
  void* data = nullptr;
  uint32_t flags = 0;
  plugin::DeviceBackend* backend = nullptr;
};

// Note [Lock-free kernel tables]
// Every call reads its op's kernel table, so reading takes no lock: a slot
// is an atomic pointer, published by the loader with a release store after
// the kernel it points to is complete, and read with an acquire load. Ops
// and kernel entries are never freed while the process runs (plugins are
// never unloaded), so a pointer read once stays valid for the whole call,
// however the table changes meanwhile.

// An op of the catalogue with its kernel tables (Note [Lock-free kernel
// tables]).
class Op {
 public:
  explicit Op(OpSchema schema);
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

  const OpSchema& schema() const { return schema_; }
  const std::string& name() const { return schema_.name; }
  OpIndex index() const { return schema_.index; }

  const BackendKernel* kernel(DeviceTypeId type, DType dtype) const {
    return kernels_[type][static_cast<int>(dtype)].load(std::memory_order_acquire);
  }
  void set_kernel(DeviceTypeId type, DType dtype, const BackendKernel* kernel) {
    kernels_[type][static_cast<int>(dtype)].store(kernel, std::memory_order_release);
  }

 private:
  OpSchema schema_;
  std::array<std::array<std::atomic<const BackendKernel*>, kNumDTypes>, kMaxDeviceTypes> kernels_{};
};

}  // namespace ember::dispatch
