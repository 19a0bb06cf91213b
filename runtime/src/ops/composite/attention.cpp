// scaled_dot_product_attention: softmax(q k^T * scale + mask) v over the
// last two dims, batch dims broadcast. A backend's fused kernel sees 4-D
// [N, H, L, E] operands and an additive mask; the decomposition is the
// matmul-softmax-matmul the kernel stands for.
#include <cmath>
#include <limits>
#include <string>

#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void check_operands(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                    double dropout_p, bool is_causal) {
  if (q.dtype() != k.dtype() || q.dtype() != v.dtype()) {
    throw_error(ErrorKind::Runtime,
                "scaled_dot_product_attention(): expected query, key, and value to have the same dtype, but got "
                "query.dtype: " +
                    composite::dtype_str(q) + " key.dtype: " + composite::dtype_str(k) +
                    " and value.dtype: " + composite::dtype_str(v) + " instead.");
  }
  composite::check_floating("scaled_dot_product_attention", q);
  if (q.device() != k.device() || q.device() != v.device()) {
    throw_error(ErrorKind::Runtime,
                "scaled_dot_product_attention(): expected query, key, and value on one device, got " +
                    q.device().str() + ", " + k.device().str() + " and " + v.device().str());
  }
  for (const auto& [name, t] : {std::pair<const char*, const Tensor&>{"query", q}, {"key", k}, {"value", v}}) {
    if (t.dim() < 2) {
      throw_error(ErrorKind::Runtime, std::string("scaled_dot_product_attention(): expected ") + name +
                                          " to have at least 2 dims, but got shape " + shape_str(t.sizes()));
    }
  }
  if (q.size(-1) != k.size(-1)) {
    throw_error(ErrorKind::Runtime, "scaled_dot_product_attention(): query " + shape_str(q.sizes()) + " and key " +
                                        shape_str(k.sizes()) + " must have the same embedding size (last dim)");
  }
  if (k.size(-2) != v.size(-2)) {
    throw_error(ErrorKind::Runtime, "scaled_dot_product_attention(): key " + shape_str(k.sizes()) + " and value " +
                                        shape_str(v.sizes()) + " must have the same sequence length (dim -2)");
  }
  if (dropout_p < 0 || dropout_p > 1) {
    throw_error(ErrorKind::Value, "scaled_dot_product_attention(): dropout_p has to be between 0 and 1, but got " +
                                      std::to_string(dropout_p));
  }
  if (!mask) return;
  if (is_causal) {
    throw_error(ErrorKind::Runtime,
                "scaled_dot_product_attention(): explicit attn_mask should not be set when is_causal=True");
  }
  if (mask->dtype() != DType::Bool && mask->dtype() != q.dtype()) {
    throw_error(ErrorKind::Runtime,
                "scaled_dot_product_attention(): expected attn_mask dtype to be bool or to match "
                "query dtype, but got attn_mask.dtype: " +
                    composite::dtype_str(*mask) + " and query.dtype: " + composite::dtype_str(q));
  }
}

// enable_gqa: key and value heads (dim -3) each serve a group of query heads.
Tensor repeat_heads(const Tensor& x, int64_t query_heads) {
  const int64_t heads = x.size(-3);
  if (heads == query_heads) return x;
  if (heads == 0 || query_heads % heads != 0) {
    throw_error(ErrorKind::Runtime, "scaled_dot_product_attention(): with enable_gqa the number of query heads (" +
                                        std::to_string(query_heads) + ") must be a multiple of the key/value heads (" +
                                        std::to_string(heads) + "), got shape " + shape_str(x.sizes()));
  }
  DimVector grouped(x.sizes());
  grouped.insert(grouped.size() - 2, query_heads / heads);
  DimVector merged(x.sizes());
  merged[merged.size() - 3] = query_heads;
  return x.unsqueeze(-3).expand(grouped).reshape(merged);
}

// [..., L, S] true above the diagonal (top-left aligned): the keys a query
// of a causal mask does not see.
Tensor above_diagonal(int64_t queries, int64_t keys, Device device) {
  const TensorOptions index_options(DType::Int64, device);
  return gt(arange(keys, index_options).unsqueeze(0) - arange(queries, index_options).unsqueeze(1), 0);
}

// The batch dims of the fused kernel: at most two stay as they are (views);
// more are folded into one, which may copy.
Tensor as_four_dims(const Tensor& x, IntArrayRef batch) {
  DimVector full(batch);
  full.push_back(x.size(-2));
  full.push_back(x.size(-1));
  Tensor expanded = x.expand(full);
  while (expanded.dim() < 4) expanded = expanded.unsqueeze(0);
  if (expanded.dim() > 4) expanded = expanded.reshape({1, -1, x.size(-2), x.size(-1)});
  // The kernel's products read rows of unit stride that do not overlap.
  const bool rows_fit = expanded.stride(3) == 1 && expanded.stride(2) >= expanded.size(3);
  return rows_fit ? expanded : expanded.contiguous();
}

// A mask keeps its size-1 dims (the kernel broadcasts them), up to 4-D.
Tensor mask_four_dims(const Tensor& mask, IntArrayRef batch, int64_t queries, int64_t keys) {
  if (batch.size() > 2) {
    DimVector full(batch);
    full.push_back(queries);
    full.push_back(keys);
    return as_four_dims(mask.expand(full), batch);
  }
  Tensor m = mask;
  while (m.dim() < 4) m = m.unsqueeze(0);
  return m;
}

// A bool mask (true: the query sees the key) as 0 / -inf in `dtype`; a float
// mask as it is.
Tensor additive_attention_mask(const Tensor& mask, DType dtype) {
  if (mask.dtype() != DType::Bool) return mask;
  return where(mask, Scalar(0.0), Scalar(kNegInf)).to(dtype);
}

// softmax(q k^T * scale + mask, causal) v with matmul's broadcasting, a
// query that sees no key giving zeros; `mask` is additive.
Tensor attention_decomposition(const Tensor& q, const Tensor& k, const Tensor& v, const std::optional<Tensor>& mask,
                               bool is_causal, double scale, double dropout_p) {
  Tensor scores = matmul(q, k.transpose(-2, -1)) * scale;
  if (mask) scores = scores + *mask;
  if (is_causal) scores = masked_fill(scores, above_diagonal(q.size(-2), k.size(-2), q.device()), kNegInf);
  if (k.size(-2) == 0) return matmul(scores, v);  // no key: zeros, still connected to the inputs
  // A query that sees no key gets zero weights, not 0/0, as PyTorch's
  // kernels give; the shift by the row maximum carries no gradient.
  const int64_t last[] = {-1};
  const Tensor row_max = amax(scores, last, true).detach();
  const Tensor shift = where(eq(row_max, kNegInf), Scalar(0.0), row_max);
  const Tensor e = exp(scores - shift);
  const Tensor total = sum(e, last, true);
  const Tensor weights = dropout(e / where(eq(total, 0.0), Scalar(1.0), total), dropout_p, dropout_p > 0);
  return matmul(weights, v);
}

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query_given, const Tensor& key_given, const Tensor& value_given,
                                    const std::optional<Tensor>& attn_mask_given, double dropout_p, bool is_causal,
                                    std::optional<double> scale, bool enable_gqa) {
  const auto [query, key, value, attn_mask] =
      composite::in_lower_precision(query_given, key_given, value_given, attn_mask_given);
  check_operands(query, key, value, attn_mask, dropout_p, is_causal);
  // Empty embeddings make every score 0, whatever the scale (1 / sqrt(0) would make them NaN).
  const int64_t embedding = query.size(-1);
  const double factor = scale.value_or(embedding > 0 ? 1.0 / std::sqrt(static_cast<double>(embedding)) : 1.0);
  Tensor k = key;
  Tensor v = value;
  if (enable_gqa && query.dim() >= 3 && key.dim() >= 3 && value.dim() >= 3) {
    k = repeat_heads(key, query.size(-3));
    v = repeat_heads(value, query.size(-3));
  }
  const int64_t queries = query.size(-2);
  const int64_t keys = k.size(-2);
  const auto batch_of = [](const Tensor& t) { return IntArrayRef(t.sizes().data(), t.sizes().size() - 2); };
  DimVector batch = batch_of(query);
  for (const Tensor* t : {&k, &v}) batch = broadcast_shapes(batch, batch_of(*t), "scaled_dot_product_attention");
  std::optional<Tensor> mask;
  if (attn_mask) {
    DimVector scores_shape(batch);
    scores_shape.push_back(queries);
    scores_shape.push_back(keys);
    if (!broadcasts_to(attn_mask->sizes(), scores_shape)) {
      throw_error(ErrorKind::Runtime, "scaled_dot_product_attention(): attn_mask of shape " +
                                          shape_str(attn_mask->sizes()) + " does not broadcast to the scores' shape " +
                                          shape_str(scores_shape));
    }
    mask = additive_attention_mask(*attn_mask, query.dtype());
  }
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::ScaledDotProductAttention);
  // Rows of zero length have no layout the kernel's products accept.
  if (dropout_p == 0 && embedding > 0 && v.size(-1) > 0 && (!mask || mask->device() == query.device()) &&
      dispatch::use_composite_kernel(fused, query)) {
    std::vector<Tensor> inputs = {as_four_dims(query, batch), as_four_dims(k, batch), as_four_dims(v, batch)};
    if (mask) inputs.push_back(mask_four_dims(*mask, batch, queries, keys));
    Tensor outputs[2];
    const ember_attr attrs[] = {dispatch::attr_bool("is_causal", is_causal), dispatch::attr_float("scale", factor)};
    dispatch::OpCall call;
    call.inputs = inputs.data();
    call.num_inputs = static_cast<int64_t>(inputs.size());
    call.outputs = outputs;
    call.num_outputs = 2;
    call.attrs = attrs;
    call.num_attrs = 2;
    dispatch::call(fused, call);
    DimVector out_shape(batch);
    out_shape.push_back(queries);
    out_shape.push_back(v.size(-1));
    return outputs[0].sizes() == out_shape ? outputs[0] : outputs[0].reshape(out_shape);
  }
  return attention_decomposition(query, k, v, mask, is_causal, factor, dropout_p);
}

}  // namespace ember
