// Host tensors for the op cases' inputs, drawn deterministically.
#pragma once

#include <cstdint>

#include <ember/tensor.h>

#include "op_case.h"

namespace ember::conformance {

// A contiguous CPU tensor as `spec` describes, in spec.dtype or `dtype`.
// The same (spec, dtype, seed) always gives the same values.
Tensor make_input(const InputSpec& spec, DType dtype, uint64_t seed);

// A seed from a case's identity, so each case draws its own values.
uint64_t seed_for(const std::string& op, const std::string& variation, size_t input);

}  // namespace ember::conformance
