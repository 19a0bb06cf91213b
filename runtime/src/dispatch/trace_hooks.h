#pragma once

#include "dispatch/op.h"
#include "ember/dispatch_key.h"
#include "ember/tensor.h"

namespace ember::dispatch {

// Note [Trace hooks]
// Graph capture (compile/) records ops through its Trace step, but three
// things happen outside any op, in layers below it: `empty` makes a tensor
// the trace has not seen (a factory's output, a conversion's target), a
// composite decides between the backend's fused kernel and its
// decomposition, host code reads a tensor's values (`item()`, printing,
// NumPy), which a tracing tensor does not have, and `detach` makes a new
// tensor over a tracing tensor's storage. The capture layer installs
// these hooks; the layers below call them only while the Trace key is
// included on the thread or set on the tensor, so eager code pays one
// branch.
struct TraceHooks {
  // A tensor `empty` made on a tracing thread.
  void (*fresh_tensor)(const Tensor& tensor) = nullptr;
  // Whether a composite called on a tracing tensor keeps the backend's
  // fused kernel (true) or is traced through its decomposition.
  bool (*keeps_composite)(const Op& op, const Tensor& input) = nullptr;
  // Makes a tracing tensor a real one, in place, before its values are
  // read; `reason` names the read ("item()", "printing").
  void (*materialize)(const Tensor& tensor, const char* reason) = nullptr;
  // `alias` (made by detach) stands for the same value as tracing `tensor`.
  void (*alias)(const Tensor& tensor, const Tensor& alias) = nullptr;
};

void set_trace_hooks(const TraceHooks* hooks);
const TraceHooks* trace_hooks();

inline bool tracing_on_this_thread() { return local_dispatch_keys().included.has(DispatchKey::Trace); }
inline bool is_tracing(const Tensor& t) { return t.defined() && t.impl()->keys().has(DispatchKey::Trace); }

// Before a host read of t's values: a tracing tensor becomes real first.
inline void materialize_if_tracing(const Tensor& t, const char* reason) {
  if (is_tracing(t)) {
    if (const TraceHooks* hooks = trace_hooks(); hooks != nullptr && hooks->materialize != nullptr) {
      hooks->materialize(t, reason);
    }
  }
}

}  // namespace ember::dispatch
