#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/tensor.h"

namespace ember::autocast {

// Note [Autocast]
// Mixed precision as torch.autocast does it: while autocast is on for a
// device type on this thread, the ops that gain from a lower precision
// (matrix products, convolutions, attention) compute in that device type's
// autocast dtype, and the ops that lose accuracy in it (losses,
// factorizations, and on accelerators reductions, softmax and layer norm)
// compute in float32. Everything else runs in the dtypes it is given. The
// casts are ordinary dispatched copies made above autograd, so gradients
// flow back to the float32 tensors they came from.
//
// The Autocast dispatch step applies the policy of catalogue ops; the
// composites PyTorch lists by name (linear, matmul, conv1d, conv2d,
// scaled_dot_product_attention, the losses) cast their arguments on entry:
// a bias then joins the product in the lower precision rather than
// promoting the result back to float32, and a fused kernel is chosen for the
// dtype it will compute in. Float64
// tensors are never cast, nor are tensors of other kinds.
enum class CastPolicy : uint8_t {
  LowerPrecision,  // float32, float16 and bfloat16 to the autocast dtype
  Float32,         // float16 and bfloat16 to float32
};

// The dtype autocast uses on a device type until told otherwise: bfloat16
// on the CPU, float16 on accelerators (PyTorch's defaults for cpu and cuda).
DType default_dtype(DeviceTypeId type);

bool is_enabled(DeviceTypeId type);
DType dtype(DeviceTypeId type);
// Whether autocast is on for some device type on this thread: one check
// before casting arguments one by one.
bool any_enabled();

// `t` as a call under `policy` computes with it: cast when autocast is on
// for its device type and the policy applies to its dtype, else `t` itself.
// Within a region (caching on), a cast of a leaf that requires grad is made
// once and reused while the leaf is unchanged, as a weight used at every
// step of a sequence model would otherwise be cast at each.
Tensor cast(const Tensor& t, CastPolicy policy);
std::optional<Tensor> cast(const std::optional<Tensor>& t, CastPolicy policy);

// The thread's state, set without a region (torch.set_autocast_enabled,
// torch.set_autocast_dtype, torch.clear_autocast_cache).
void set_enabled(DeviceTypeId type, bool enabled);
void set_dtype(DeviceTypeId type, DType dtype);
void clear_cache();

// RAII, like `with torch.autocast(device_type, dtype, enabled, cache_enabled)`:
// sets this thread's autocast state for one device type for the guard's
// lifetime, and drops the cached casts when the outermost region ends.
// A dtype autocast cannot use (not float16 or bfloat16) is an error naming it.
class AutocastGuard {
 public:
  AutocastGuard(DeviceTypeId type, DType dtype, bool enabled = true, bool cache_enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceTypeId type_;
  bool was_enabled_;
  DType previous_dtype_;
  bool previous_cache_enabled_;
};

}  // namespace ember::autocast
