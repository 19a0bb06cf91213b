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

// Shape and dtype of an output, as a meta function computes it.
struct TensorMeta {
  DimVector sizes;
  DType dtype = DType::Float32;
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

struct OpSchema {
  std::string name;
  int num_inputs = 0;      // -1: any number (cat)
  int num_outputs = 1;
  MetaFn meta = nullptr;
  // Which tensor's dtype selects the kernel: an input index, or -1 for
  // output 0 (factories).
  int dispatch_dtype_from = 0;
  // A composite has a decomposition in the core; a backend kernel for it is
  // an optional fused override.
  bool composite = false;
  // The ABI minor that introduced the op (Note [Versioned catalogue] in
  // plugin/host_api.cpp); sdk/CHANGELOG.md lists each minor's ops.
  int abi_minor = 0;
};

// A plugin's kernel for one (op, device type, dtype).
struct BackendKernel {
  ember_kernel_fn fn = nullptr;
  void* data = nullptr;
  uint32_t flags = 0;
  plugin::DeviceBackend* backend = nullptr;
};

// An op of the catalogue with its kernel tables. Tables are read without a
// lock: entries are published with release stores and never freed while the
// process runs (Note [Lock-free kernel tables]).
class Op {
 public:
  explicit Op(OpSchema schema);
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

  const OpSchema& schema() const { return schema_; }
  const std::string& name() const { return schema_.name; }

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
