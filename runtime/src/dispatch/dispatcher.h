#pragma once

#include <initializer_list>
#include <span>
#include <vector>

#include "dispatch/op.h"

namespace ember::dispatch {

// Runs one op: picks the step from the call's dispatch keys (Note [Dispatch
// keys]) and, at the backend step, allocates missing outputs from the meta
// function and calls the device's kernel.
void call(const Op& op, OpCall& call);

// Convenience for the op functions: inputs and attributes in, the op's
// outputs (allocated) back.
Tensor call_single(const Op& op, std::initializer_list<Tensor> inputs, std::initializer_list<ember_attr> attrs = {});
// The same for an op with several outputs (num_outputs of them, in order).
std::vector<Tensor> call_outputs(const Op& op, std::initializer_list<Tensor> inputs, int64_t num_outputs,
                                 std::initializer_list<ember_attr> attrs = {});
// One input, which the call reads where it is (no handle copied): the path
// of view ops and unary elementwise ops.
Tensor call_unary(const Op& op, const Tensor& input, std::initializer_list<ember_attr> attrs = {});
void call_into(const Op& op, std::initializer_list<Tensor> inputs, Tensor& output,
               std::initializer_list<ember_attr> attrs = {});
// call_into for an op that writes several outputs in place (optimizer
// updates): each output is defined, and written where it is.
void call_into(const Op& op, std::initializer_list<Tensor> inputs, std::span<Tensor> outputs,
               std::initializer_list<ember_attr> attrs = {});

// Note [Composite kernels]
// A composite op runs the backend's fused kernel when the backend registered
// one for its dtype and overrides are enabled; otherwise the core's
// decomposition. Disabling overrides (set_composite_kernels_enabled) proves
// the primitives-only contract: every composite then runs on primitives.
bool use_composite_kernel(const Op& op, const Tensor& x);

// While alive, every composite on this thread runs its decomposition; a
// derivative uses it to differentiate a fused kernel through the ops the
// kernel stands for.
class DecompositionGuard {
 public:
  DecompositionGuard();
  ~DecompositionGuard();
  DecompositionGuard(const DecompositionGuard&) = delete;
  DecompositionGuard& operator=(const DecompositionGuard&) = delete;
};

// Attribute builders; names and arrays are borrowed for the call.
ember_attr attr_int(const char* name, int64_t value);
ember_attr attr_float(const char* name, double value);
ember_attr attr_bool(const char* name, bool value);
ember_attr attr_ints(const char* name, IntArrayRef values);

}  // namespace ember::dispatch
