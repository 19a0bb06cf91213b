#pragma once

// Composite ops (PyTorch's torch.* and torch.nn.functional.* names), defined
// once in the core as decompositions into the public ops of ember/ops.h and
// tensor views. A backend that implements the primitives gets all of them,
// and they are differentiable wherever their parts are.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/ops.h"

namespace ember {

// Backends may register fused kernels for some composite ops (softmax,
// log_softmax); with this off every composite runs its decomposition into
// primitives (Note [Composite kernels]). On by default.
void set_composite_kernels_enabled(bool enabled);
bool composite_kernels_enabled();


// --- scans and sorting (primitives, sdk/docs/ops.md)
// Integer and bool inputs accumulate into int64, as in PyTorch.
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype = std::nullopt);
// NaN sorts as the largest value; indices are int64.
ValuesIndices sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
ValuesIndices topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);

// --- reductions
Tensor logsumexp(const Tensor& x, IntArrayRef dims, bool keepdim = false);
Tensor var(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, IntArrayRef dims = {}, double correction = 1, bool keepdim = false);
// p = 2, 1, or +/-infinity (max/min of |x|); other p use (sum |x|^p)^(1/p).
Tensor norm(const Tensor& x, double p = 2, IntArrayRef dims = {}, bool keepdim = false);

// --- activations
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);
Tensor clamp(const Tensor& x, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
Tensor relu(const Tensor& x);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
// approximate: "none" (erf) or "tanh".
Tensor gelu(const Tensor& x, std::string_view approximate = "none");
Tensor silu(const Tensor& x);
Tensor softplus(const Tensor& x, double beta = 1, double threshold = 20);
Tensor elu(const Tensor& x, double alpha = 1);
Tensor hardtanh(const Tensor& x, double min_val = -1, double max_val = 1);
// The keep mask comes from ember::rand, so manual_seed makes it repeatable.
Tensor dropout(const Tensor& x, double p = 0.5, bool training = true);

// --- linear algebra
// torch.matmul: dot, mv, mm, and batched products broadcasting batch dims.
Tensor matmul(const Tensor& a, const Tensor& b);
// x @ w^T + bias, with w of shape [out_features, in_features].
Tensor linear(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias = std::nullopt);

// --- normalization
Tensor layer_norm(const Tensor& x, IntArrayRef normalized_shape, const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
// In training mode the running statistics (when given) are updated in place:
// running = (1 - momentum) * running + momentum * batch, with the unbiased
// batch variance, as PyTorch does.
Tensor batch_norm(const Tensor& x, const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                  const std::optional<Tensor>& weight = std::nullopt, const std::optional<Tensor>& bias = std::nullopt,
                  bool training = false, double momentum = 0.1, double eps = 1e-5);
Tensor group_norm(const Tensor& x, int64_t num_groups, const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);

Tensor embedding(const Tensor& weight, const Tensor& indices);

// --- attention
// torch.nn.functional.scaled_dot_product_attention: softmax(q k^T * scale +
// mask) v over query [..., L, E], key [..., S, E], value [..., S, Ev], batch
// dims broadcast. attn_mask is bool (true: the query sees the key) or of the
// query's dtype (added to the scores), broadcastable to [..., L, S];
// is_causal masks keys after the query (top-left aligned); scale defaults to
// 1 / sqrt(E); enable_gqa lets key and value have fewer heads (dim -3), each
// serving a group of query heads. A query that sees no key gives zeros.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = std::nullopt, double dropout_p = 0,
                                    bool is_causal = false, std::optional<double> scale = std::nullopt,
                                    bool enable_gqa = false);

// --- recurrent layers
struct LstmLayerResult {
  Tensor output;  // [T, B, H], in time order
  Tensor h;       // the final state, [B, H]
  Tensor c;
};
// One direction of one LSTM layer over x [T, B, I] from (h0, c0) [B, H],
// with w_ih [4H, I], w_hh [4H, H] and one bias b [4H] (b_ih + b_hh), gates
// in PyTorch's order (input, forget, cell, output); reverse walks from the
// last step to the first.
LstmLayerResult lstm_layer(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& w_ih,
                           const Tensor& w_hh, const Tensor& b, bool reverse = false);
// Whether lstm_layer would run x's backend's kernel rather than its
// decomposition (the Python layer has its own recurrence for the latter).
bool lstm_layer_runs_kernel(const Tensor& x);

// --- convolution and pooling. Spatial arguments take one value (used for
// every spatial dim) or one per spatial dim; an empty pooling stride means
// "the kernel size".
Tensor conv1d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias = std::nullopt,
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias = std::nullopt,
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
// x [N, C, D, H, W] (or unbatched), w [O, C / groups, kd, kh, kw].
Tensor conv3d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias = std::nullopt,
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1);
// The transposed convolution of a batched [N, C, H, W] x with weight
// [C, O / groups, kh, kw] (conv2d's input gradient, so the backend's
// conv2d_backward_input kernel runs it), or nullopt when x's backend has no
// such kernel for its dtype or an output padding is not below the stride
// (the output is then no conv2d input of x's size); the Python layer then
// decomposes it. Arguments are checked by the caller.
std::optional<Tensor> conv_transpose2d_by_kernel(const Tensor& x, const Tensor& w, IntArrayRef stride,
                                                 IntArrayRef padding, IntArrayRef output_padding,
                                                 IntArrayRef dilation, int64_t groups);
// The same for a batched [N, C, D, H, W] x, on conv3d_backward_input.
std::optional<Tensor> conv_transpose3d_by_kernel(const Tensor& x, const Tensor& w, IntArrayRef stride,
                                                 IntArrayRef padding, IntArrayRef output_padding,
                                                 IntArrayRef dilation, int64_t groups);
// ceil_mode rounds the output size up, as PyTorch does: one more window
// where a partial one remains, as long as it starts inside the input or its
// left/top padding.
Tensor max_pool2d(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  IntArrayRef dilation = {1}, bool ceil_mode = false);
// Also the argmax of each window, as an index h * W + w into the input plane
// (int64), as PyTorch's return_indices=True gives.
ValuesIndices max_pool2d_with_indices(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride = {},
                                      IntArrayRef padding = {0}, IntArrayRef dilation = {1}, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool count_include_pad = true);
Tensor adaptive_avg_pool2d(const Tensor& x, IntArrayRef output_size);
// Constant padding in F.pad's order: (left, right) of the last dim first,
// then the one before it, ...; negative amounts crop.
Tensor pad(const Tensor& x, IntArrayRef padding, const Scalar& value = 0);

// --- losses; reduction is "mean", "sum" or "none"
// target: int64 class indices ([N] or [N, d1, ...]) or class probabilities
// (floating, same shape as logits). Classes are on dim 1 (dim 0 for 1-D logits).
Tensor cross_entropy(const Tensor& logits, const Tensor& target, const std::optional<Tensor>& weight = std::nullopt,
                     int64_t ignore_index = -100, std::string_view reduction = "mean", double label_smoothing = 0);
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, const std::optional<Tensor>& weight = std::nullopt,
                int64_t ignore_index = -100, std::string_view reduction = "mean");
Tensor mse_loss(const Tensor& input, const Tensor& target, std::string_view reduction = "mean");
Tensor l1_loss(const Tensor& input, const Tensor& target, std::string_view reduction = "mean");
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, std::string_view reduction = "mean", double beta = 1);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const std::optional<Tensor>& weight = std::nullopt, std::string_view reduction = "mean");
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const std::optional<Tensor>& weight = std::nullopt,
                                        std::string_view reduction = "mean",
                                        const std::optional<Tensor>& pos_weight = std::nullopt);

// --- shape and selection
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& cond, const Scalar& a, const Scalar& b);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
// Views of x: pieces of split_size (the last may be smaller), or of the given sizes.
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
Tensor flip(const Tensor& x, IntArrayRef dims);
// Without dims, rolls the flattened tensor and restores the shape.
Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims = {});
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
// num_classes = -1 means max(indices) + 1.
Tensor one_hot(const Tensor& indices, int64_t num_classes = -1);

// --- advanced indexing: Python's x[i, :, j] and x[i, :, j] = v with tensors.
// `indices` has one entry per leading dim of x, nullopt meaning the whole
// dim (':'). Integer index tensors broadcast together; a bool mask over k
// dims stands for the k coordinates of its true elements. When the indexed
// dims are adjacent the index dims replace them in place, otherwise they come
// first (PyTorch's rule).
Tensor index(const Tensor& x, const std::vector<std::optional<Tensor>>& indices);
// With accumulate, repeated positions sum; without, the last write wins.
Tensor index_put(const Tensor& x, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate = false);
Tensor& index_put_(Tensor& x, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate = false);
// [count, x.dim()] int64 coordinates of the nonzero elements, row-major order.
Tensor nonzero(const Tensor& x);

}  // namespace ember
