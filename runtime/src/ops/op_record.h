#pragma once

#include <span>

#include "autograd/derivatives.h"
#include "dispatch/op.h"
#include "dispatch/op_id.h"
#include "dispatch/op_registry.h"

namespace ember::ops {

using dispatch::OpId;

// How an elementwise op's public function prepares its operands before
// dispatch (the kernel then sees one dtype and one shape, sdk/docs/ops.md).
// Ops of other families check their dtypes in their public function.
enum class DTypeRule : uint8_t {
  Custom,          // checked by the op's public function
  Numeric,         // every dtype but bool
  FloatPromoting,  // integers become the default float dtype first
  Rounding,        // floats only; integers are returned as a copy
  Integral,        // integers and bool
  Any,             // every dtype (logical ops)
  Arithmetic,      // result in the common dtype
  TrueDivide,      // integers promote to the default float dtype
  Bitwise,         // integers and bool only
  Compare,         // bool result, compared in the common dtype
};

// Note [One record per op]
// Everything the core knows of an op is its record: name (the ABI's word
// for it), arity, attributes, meta function, dtype rule, derivative, kind,
// and the ABI minor whose catalogue introduced it. The records are plain
// data, one table per family (ops/op_records.cpp), joined to code by symbol,
// never by string, so a missing meta function or derivative is a compile
// error or a failing check (tests/cpp/test_op_records.cpp), not a user's
// run. A derivative is null only for ops whose outputs carry no gradient
// (bool or integer results, and the backward ops derivatives call).
struct OpRecord {
  OpId id;
  const char* name;
  int num_inputs;  // -1: any number (cat)
  int num_outputs;
  const char* attributes;  // space-separated, as sdk/docs/ops.md lists them
  dispatch::MetaFn meta;
  autograd::DerivativeMaker derivative;
  DTypeRule dtype_rule = DTypeRule::Custom;
  dispatch::OpKind kind = dispatch::OpKind::Primitive;
  int abi_minor = 0;
  int dispatch_dtype_from = 0;  // an input index, or -1 for output 0
  // The backward also reads the op's outputs (Note [Derivatives that read
  // outputs] in autograd/autograd_step.cpp).
  bool derivative_reads_outputs = false;
};

// Every record, in OpId order.
std::span<const OpRecord> op_records();

inline const OpRecord& record(OpId id) { return op_records()[static_cast<size_t>(id)]; }

using dispatch::op;

}  // namespace ember::ops
