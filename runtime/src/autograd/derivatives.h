#pragma once

#include <vector>

#include "autograd/node.h"
#include "dispatch/op.h"

namespace ember::autograd {

// Builds the backward of one primitive call: appends the tensors it needs to
// `saved` (they come back, version-checked, in the same order) and returns
// the function from output gradients to input gradients. Runs before the
// op, so in-place calls still see their inputs' old values.
using DerivativeMaker = BackwardFn (*)(const dispatch::OpCall& call, std::vector<Tensor>& saved);

// The derivative of the op at `index` in the registry, as the op's record
// gives it (Note [One record per op]); nullptr when its outputs carry no
// gradient. The registry fills the table once, before the first call.
// `reads_outputs`: the backward also finds the op's outputs in `saved`,
// after what the maker saved (Note [Derivatives that read outputs]).
void set_derivative(dispatch::OpIndex index, DerivativeMaker derivative, bool reads_outputs = false);
DerivativeMaker find_derivative(dispatch::OpIndex index);

// The derivatives the op records name, by family.
BackwardFn d_neg(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_abs(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_zero(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_exp(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_log(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_log1p(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_sqrt(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_rsqrt(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_sin(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_cos(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_tan(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_tanh(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_sigmoid(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_erf(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_reciprocal(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_erfc(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_erfinv(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_asin(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_acos(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_atan(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_lgamma(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_digamma(const dispatch::OpCall&, std::vector<Tensor>&);

BackwardFn d_add(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_sub(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_mul(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_div(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_pow(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_maximum(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_minimum(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_atan2(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_floor_divide(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_remainder(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_where(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_copy(const dispatch::OpCall&, std::vector<Tensor>&);

BackwardFn d_sum(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_prod(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_mean(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_amax(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_amin(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_cumsum(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_sort(const dispatch::OpCall&, std::vector<Tensor>&);

BackwardFn d_mm(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_mm_bias(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_bmm(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_index_select(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_gather(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_scatter_add(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_cat(const dispatch::OpCall&, std::vector<Tensor>&);

BackwardFn d_softmax(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_log_softmax(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_conv2d(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_conv2d_bias(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_conv2d_backward_input(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_conv3d(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_conv3d_backward_input(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_max_pool2d(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_avg_pool2d(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_layer_norm(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_cross_entropy(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_scaled_dot_product_attention(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_lstm_layer(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_gelu(const dispatch::OpCall&, std::vector<Tensor>&);

// autograd/linalg_derivatives.cpp
BackwardFn d_linalg_cholesky(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_linalg_lu_factor(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_linalg_solve_triangular(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_linalg_qr(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_linalg_eigh(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_linalg_svd(const dispatch::OpCall&, std::vector<Tensor>&);

// Views (autograd/view_derivatives.cpp).
BackwardFn d_view(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_permute(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_transpose(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_expand(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_slice(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_select(const dispatch::OpCall&, std::vector<Tensor>&);
BackwardFn d_as_strided(const dispatch::OpCall&, std::vector<Tensor>&);

// The Autograd dispatch step (Note [Dispatch keys]): runs the op below the
// Autograd key and records it when any input requires a gradient.
void run_autograd_step(const dispatch::Op& op, dispatch::OpCall& call);

}  // namespace ember::autograd
