// What the derivative of scaled_dot_product_attention shares with the op's
// public function (ops/composite/attention.cpp).
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember::composite {

// A bool mask (true: the query sees the key) as 0 / -inf in `dtype`; a float
// mask as it is.
Tensor additive_attention_mask(const Tensor& mask, DType dtype);

// softmax(q k^T * scale + mask, causal) v with PyTorch's broadcasting, a
// query that sees no key giving zeros; `mask` is additive.
Tensor attention_decomposition(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                               bool is_causal, double scale, double dropout_p = 0);

}  // namespace ember::composite
