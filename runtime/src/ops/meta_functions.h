#pragma once

#include "dispatch/op.h"

namespace ember::ops {

// The meta functions the op records name (ops/meta_functions.cpp).
void meta_like_input0(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_bool_like_input0(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_like_input1(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_needs_output(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_sum_like(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_reduce_same_dtype(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_arg_reduce(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_mm(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_bmm(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_index_select(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_gather(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_cat(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_cumsum(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_sort(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_convolution(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_max_pool2d(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_avg_pool2d(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_cross_entropy(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_attention(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_attention_backward(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_layer_norm_backward(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_lstm_layer(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_lstm_layer_workspace_bytes(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_lstm_layer_backward(const dispatch::OpCall& call, dispatch::TensorMeta* out);
// An optimizer update's in-place outputs: output 0 is input 0 (param), output
// k > 0 is input k + 1 (the state after the gradient).
void meta_optimizer_update(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_linalg_cholesky(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_linalg_lu_factor(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_linalg_qr(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_linalg_eigh(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_linalg_svd(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_input_sizes(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_weight_sizes(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_view(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_permute(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_transpose(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_expand(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_squeeze(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_unsqueeze(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_slice(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_select(const dispatch::OpCall& call, dispatch::TensorMeta* out);
void meta_as_strided(const dispatch::OpCall& call, dispatch::TensorMeta* out);

}  // namespace ember::ops
