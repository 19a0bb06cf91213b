// Meta functions of the catalogue's ops: output sizes and dtypes (and, for
// views, strides and offset) from the inputs' metadata and the attributes.
// Arguments are validated by each op's public function before dispatch, so a
// meta function only derives output metadata.
#include "ops/meta_functions.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>

#include "core/shape.h"
#include "ember/error.h"

namespace ember::ops {

using dispatch::OpCall;
using dispatch::TensorMeta;

void meta_like_input0(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.inputs[0].sizes();
  out[0].dtype = call.inputs[0].dtype();
}

void meta_bool_like_input0(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.inputs[0].sizes();
  out[0].dtype = DType::Bool;
}

void meta_like_input1(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.inputs[1].sizes();
  out[0].dtype = call.inputs[1].dtype();
}

// Factories and copy write into a tensor the caller made.
void meta_needs_output(const OpCall&, TensorMeta*) {
  throw_error(ErrorKind::Runtime, "this op writes into a given output tensor and cannot allocate one");
}

static DimVector keepdim_sizes(const OpCall& call, IntArrayRef dims) {
  DimVector sizes = call.inputs[0].sizes();
  if (dims.empty()) {
    for (auto& s : sizes) s = 1;
  } else {
    for (int64_t d : dims) sizes[d] = 1;
  }
  return sizes;
}

static DType sum_dtype(DType in) { return is_integral(in, true) ? DType::Int64 : in; }

void meta_sum_like(const OpCall& call, TensorMeta* out) {
  out[0].sizes = keepdim_sizes(call, call.attr_ints("sum", "dims"));
  out[0].dtype = sum_dtype(call.inputs[0].dtype());
}

void meta_reduce_same_dtype(const OpCall& call, TensorMeta* out) {
  out[0].sizes = keepdim_sizes(call, call.attr_ints("reduction", "dims"));
  out[0].dtype = call.inputs[0].dtype();
}

void meta_arg_reduce(const OpCall& call, TensorMeta* out) {
  const int64_t dim = call.attr_int("argmax/argmin", "dim");
  DimVector sizes = call.inputs[0].sizes();
  if (dim < 0) {
    for (auto& s : sizes) s = 1;
  } else {
    sizes[dim] = 1;
  }
  out[0].sizes = sizes;
  out[0].dtype = DType::Int64;
}

void meta_mm(const OpCall& call, TensorMeta* out) {
  out[0].sizes = {call.inputs[0].size(0), call.inputs[1].size(1)};
  out[0].dtype = call.inputs[0].dtype();
}

void meta_bmm(const OpCall& call, TensorMeta* out) {
  out[0].sizes = {call.inputs[0].size(0), call.inputs[0].size(1), call.inputs[1].size(2)};
  out[0].dtype = call.inputs[0].dtype();
}

void meta_index_select(const OpCall& call, TensorMeta* out) {
  DimVector sizes = call.inputs[0].sizes();
  if (!sizes.empty()) sizes[call.attr_int("index_select", "dim")] = call.inputs[1].numel();
  out[0].sizes = sizes;
  out[0].dtype = call.inputs[0].dtype();
}

void meta_gather(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.inputs[1].sizes();
  out[0].dtype = call.inputs[0].dtype();
}

void meta_cat(const OpCall& call, TensorMeta* out) {
  const int64_t dim = call.attr_int("cat", "dim");
  DimVector sizes = call.inputs[0].sizes();
  std::optional<int64_t> total = 0;
  for (int64_t i = 0; i < call.num_inputs && total; ++i) total = checked_add(*total, call.inputs[i].size(dim));
  if (!total) {
    throw_error(ErrorKind::Runtime, "cat: the sizes along dim " + std::to_string(dim) + " add up past 2^63 - 1");
  }
  sizes[dim] = *total;
  out[0].sizes = sizes;
  out[0].dtype = call.inputs[0].dtype();
}

void meta_cumsum(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.inputs[0].sizes();
  out[0].dtype = sum_dtype(call.inputs[0].dtype());
}

void meta_sort(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.inputs[0].sizes();
  out[0].dtype = call.inputs[0].dtype();
  out[1].sizes = call.inputs[0].sizes();
  out[1].dtype = DType::Int64;
}

// [N, C_out, spatial...] of a window sweep over a [N, C, spatial...] input,
// with out = (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1.
static DimVector swept_sizes(const OpCall& call, const char* op, int64_t channels, IntArrayRef kernel) {
  const Tensor& x = call.inputs[0];
  const IntArrayRef stride = call.attr_ints(op, "stride");
  const IntArrayRef padding = call.attr_ints(op, "padding");
  const ember_attr* dilation = call.find_attr("dilation");
  DimVector sizes{x.size(0), channels};
  for (size_t i = 0; i < kernel.size(); ++i) {
    const int64_t d = dilation != nullptr ? dilation->ints[i] : 1;
    sizes.push_back((x.size(2 + i) + 2 * padding[i] - d * (kernel[i] - 1) - 1) / stride[i] + 1);
  }
  return sizes;
}

// conv2d and conv3d: x [N, C, spatial...], w [O, C / groups, kernel...].
void meta_convolution(const OpCall& call, TensorMeta* out) {
  const Tensor& w = call.inputs[1];
  out[0].sizes = swept_sizes(call, "convolution", w.size(0), IntArrayRef(w.sizes().data() + 2, w.dim() - 2));
  out[0].dtype = call.inputs[0].dtype();
}

void meta_max_pool2d(const OpCall& call, TensorMeta* out) {
  const IntArrayRef kernel = call.attr_ints("max_pool2d", "kernel_size");
  out[0].sizes = swept_sizes(call, "max_pool2d", call.inputs[0].size(1), kernel);
  out[0].dtype = call.inputs[0].dtype();
  out[1].sizes = out[0].sizes;
  out[1].dtype = DType::Int64;
}

void meta_avg_pool2d(const OpCall& call, TensorMeta* out) {
  const IntArrayRef kernel = call.attr_ints("avg_pool2d", "kernel_size");
  out[0].sizes = swept_sizes(call, "avg_pool2d", call.inputs[0].size(1), kernel);
  out[0].dtype = call.inputs[0].dtype();
}

// reduction: 0 "none" gives one loss per row, 1 "mean" and 2 "sum" a scalar.
void meta_cross_entropy(const OpCall& call, TensorMeta* out) {
  if (call.attr_int("cross_entropy", "reduction") == 0) out[0].sizes = {call.inputs[0].size(0)};
  out[0].dtype = call.inputs[0].dtype();
}

// Inputs q [N, H, L, E], k [N, H, S, E], v [N, H, S, Ev] (and a mask):
// the output [N, H, L, Ev] and the log-sum-exp of each query's scores [N, H, L].
void meta_attention(const OpCall& call, TensorMeta* out) {
  const Tensor& q = call.inputs[0];
  out[0].sizes = {q.size(0), q.size(1), q.size(2), call.inputs[2].size(3)};
  out[0].dtype = q.dtype();
  out[1].sizes = {q.size(0), q.size(1), q.size(2)};
  out[1].dtype = q.dtype();
}

// Inputs (dout, q, k, v, out, lse, [mask]): the gradients of q, k and v.
void meta_attention_backward(const OpCall& call, TensorMeta* out) {
  for (int i = 0; i < 3; ++i) {
    out[i].sizes = call.inputs[i + 1].sizes();
    out[i].dtype = call.inputs[i + 1].dtype();
  }
}

// Inputs x [T, B, I], h0 [B, H], c0, w_ih, w_hh, b: the output [T, B, H],
// the final h and c, and the backend's workspace of `workspace_bytes` bytes
// (Note [LSTM layer workspace]).
void meta_lstm_layer(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const Tensor& h0 = call.inputs[1];
  out[0].sizes = {x.size(0), x.size(1), h0.size(1)};
  for (int i = 0; i < 3; ++i) out[i].dtype = x.dtype();
  out[1].sizes = h0.sizes();
  out[2].sizes = h0.sizes();
  out[3].sizes = {call.attr_int("lstm_layer", "workspace_bytes")};
  out[3].dtype = DType::UInt8;
}

void meta_lstm_layer_workspace_bytes(const OpCall&, TensorMeta* out) { out[0].dtype = DType::Int64; }

// Inputs (dy, dh_T, dc_T, x, h0, c0, w_ih, w_hh, b, ...): the gradients of
// x, h0, c0, w_ih, w_hh and b.
void meta_lstm_layer_backward(const OpCall& call, TensorMeta* out) {
  for (int i = 0; i < 6; ++i) {
    out[i].sizes = call.inputs[i + 3].sizes();
    out[i].dtype = call.inputs[i + 3].dtype();
  }
}

void meta_optimizer_update(const OpCall& call, TensorMeta* out) {
  for (int64_t k = 0; k + 1 < call.num_inputs; ++k) {
    const Tensor& like = call.inputs[k == 0 ? 0 : k + 1];
    out[k].sizes = like.sizes();
    out[k].dtype = like.dtype();
  }
}

// Inputs (dy, x, weight): dx like x, dweight and dbias like weight.
void meta_layer_norm_backward(const OpCall& call, TensorMeta* out) {
  for (int i = 0; i < 3; ++i) {
    const Tensor& like = call.inputs[i == 0 ? 1 : 2];
    out[i].sizes = like.sizes();
    out[i].dtype = like.dtype();
  }
}

// Backward ops (conv2d_backward_input, avg_pool2d_backward, ...) are told
// the shape they produce (max_pool2d_backward's is its input x's).
void meta_input_sizes(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.attr_ints("backward op", "input_sizes");
  out[0].dtype = call.inputs[0].dtype();
}

void meta_weight_sizes(const OpCall& call, TensorMeta* out) {
  out[0].sizes = call.attr_ints("backward op", "weight_sizes");
  out[0].dtype = call.inputs[0].dtype();
}

// Views: sizes, strides and offset over input 0's storage, from attributes
// the op's public function validated and normalised. Each writes out[0]
// in place: a view op's cost is mostly these copies.
static TensorMeta& view_meta(const OpCall& call, TensorMeta* out, int64_t offset) {
  out[0].dtype = call.inputs[0].dtype();
  out[0].storage_offset = offset;
  return out[0];
}

// The one meta function that can fail on valid arguments: only computing the
// strides tells whether the input's layout can express the shape.
void meta_view(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const IntArrayRef sizes = call.attr_ints("view", "sizes");
  std::optional<DimVector> strides = view_strides(x.sizes(), x.strides(), sizes);
  if (!strides) {
    throw_error(ErrorKind::Runtime,
                "view: size " + shape_str(sizes) + " is not compatible with input tensor's size " +
                    shape_str(x.sizes()) + " and stride " + shape_str(x.strides()) +
                    " (at least one dimension spans across two contiguous subspaces); use reshape instead");
  }
  TensorMeta& meta = view_meta(call, out, x.storage_offset());
  meta.sizes = sizes;
  meta.strides = *strides;
}

void meta_permute(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const IntArrayRef dims = call.attr_ints("permute", "dims");
  TensorMeta& meta = view_meta(call, out, x.storage_offset());
  meta.sizes = DimVector(dims.size());
  meta.strides = DimVector(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    meta.sizes[i] = x.sizes()[dims[i]];
    meta.strides[i] = x.strides()[dims[i]];
  }
}

void meta_transpose(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const int64_t a = call.attr_int("transpose", "dim0");
  const int64_t b = call.attr_int("transpose", "dim1");
  TensorMeta& meta = view_meta(call, out, x.storage_offset());
  meta.sizes = x.sizes();
  meta.strides = x.strides();
  std::swap(meta.sizes[a], meta.sizes[b]);
  std::swap(meta.strides[a], meta.strides[b]);
}

void meta_expand(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const IntArrayRef shape = call.attr_ints("expand", "sizes");
  const size_t lead = shape.size() - x.sizes().size();
  TensorMeta& meta = view_meta(call, out, x.storage_offset());
  meta.sizes = shape;
  meta.strides = DimVector(shape.size(), 0);
  for (size_t i = lead; i < shape.size(); ++i) {
    if (x.sizes()[i - lead] == shape[i]) meta.strides[i] = x.strides()[i - lead];
  }
}

void meta_squeeze(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const IntArrayRef dims = call.attr_ints("squeeze", "dims");
  TensorMeta& meta = view_meta(call, out, x.storage_offset());
  meta.sizes = DimVector();
  meta.strides = DimVector();
  for (int64_t d = 0, next = 0; d < x.dim(); ++d) {
    if (next < static_cast<int64_t>(dims.size()) && dims[next] == d) {
      ++next;
      continue;
    }
    meta.sizes.push_back(x.sizes()[d]);
    meta.strides.push_back(x.strides()[d]);
  }
}

// The new dim's stride is the one a contiguous layout would give it, which
// the public function checked fits in int64.
void meta_unsqueeze(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const int64_t dim = call.attr_int("unsqueeze", "dim");
  TensorMeta& meta = view_meta(call, out, x.storage_offset());
  meta.sizes = x.sizes();
  meta.strides = x.strides();
  const int64_t stride = dim < x.dim() ? x.sizes()[dim] * x.strides()[dim] : 1;
  meta.sizes.insert(dim, 1);
  meta.strides.insert(dim, stride);
}

// start and end are clamped to [0, size] with end >= start; a step too large
// to scale the stride by only matters when two or more elements remain,
// which the public function checked.
void meta_slice(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const int64_t dim = call.attr_int("slice", "dim");
  const int64_t start = call.attr_int("slice", "start");
  const int64_t end = call.attr_int("slice", "end");
  const int64_t step = call.attr_int("slice", "step");
  // ceil((end - start) / step) without forming end - start + step, which wraps for a huge step.
  const int64_t count = end == start ? 0 : (end - start - 1) / step + 1;
  TensorMeta& meta =
      view_meta(call, out, count == 0 ? x.storage_offset() : x.storage_offset() + start * x.strides()[dim]);
  meta.sizes = x.sizes();
  meta.strides = x.strides();
  meta.sizes[dim] = count;
  if (count > 1) meta.strides[dim] = step * x.strides()[dim];
}

void meta_select(const OpCall& call, TensorMeta* out) {
  const Tensor& x = call.inputs[0];
  const int64_t dim = call.attr_int("select", "dim");
  const int64_t index = call.attr_int("select", "index");
  TensorMeta& meta = view_meta(call, out, x.storage_offset() + index * x.strides()[dim]);
  meta.sizes = x.sizes();
  meta.strides = x.strides();
  meta.sizes.erase(dim);
  meta.strides.erase(dim);
}

void meta_as_strided(const OpCall& call, TensorMeta* out) {
  TensorMeta& meta = view_meta(call, out, call.attr_int("as_strided", "storage_offset"));
  meta.sizes = call.attr_ints("as_strided", "sizes");
  meta.strides = call.attr_ints("as_strided", "strides");
}

// The factorizations see a batch of matrices: every dim but the last two.
static DimVector with_trailing(const Tensor& matrices, std::initializer_list<int64_t> trailing) {
  DimVector sizes(IntArrayRef(matrices.sizes().begin(), static_cast<size_t>(matrices.dim() - 2)));
  for (int64_t size : trailing) sizes.push_back(size);
  return sizes;
}

void meta_linalg_cholesky(const OpCall& call, TensorMeta* out) {
  const Tensor& a = call.inputs[0];
  out[0] = {a.sizes(), a.dtype()};
  out[1] = {with_trailing(a, {}), DType::Int32};
}

void meta_linalg_lu_factor(const OpCall& call, TensorMeta* out) {
  const Tensor& a = call.inputs[0];
  out[0] = {a.sizes(), a.dtype()};
  out[1] = {with_trailing(a, {std::min(a.size(-2), a.size(-1))}), DType::Int32};
  out[2] = {with_trailing(a, {}), DType::Int32};
}

void meta_linalg_qr(const OpCall& call, TensorMeta* out) {
  const Tensor& a = call.inputs[0];
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const int64_t mode = call.attr_int("linalg_qr", "mode");
  out[0] = {mode == 2 ? DimVector{0} : with_trailing(a, {m, mode == 1 ? m : k}), a.dtype()};
  out[1] = {with_trailing(a, {mode == 1 ? m : k, n}), a.dtype()};
}

void meta_linalg_eigh(const OpCall& call, TensorMeta* out) {
  const Tensor& a = call.inputs[0];
  out[0] = {with_trailing(a, {a.size(-1)}), a.dtype()};
  out[1] = {a.sizes(), a.dtype()};
}

void meta_linalg_svd(const OpCall& call, TensorMeta* out) {
  const Tensor& a = call.inputs[0];
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const bool full = call.attr_int("linalg_svd", "full_matrices") != 0;
  out[0] = {with_trailing(a, {m, full ? m : k}), a.dtype()};
  out[1] = {with_trailing(a, {k}), a.dtype()};
  out[2] = {with_trailing(a, {full ? n : k, n}), a.dtype()};
}

}  // namespace ember::ops
