// Constant padding, convolution and pooling. Windows are strided views of a
// padded contiguous input ("unfold"); convolution is then one batched matrix
// product, and pooling a reduction over the window dims.
#include <array>
#include <limits>
#include <string>

#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "dispatch/trace_hooks.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

template <size_t N>
using Spatial = std::array<int64_t, N>;
using Pair = Spatial<2>;

// One value for every spatial dim, or one each.
template <size_t N>
Spatial<N> spatial_arg(std::string_view op, std::string_view name, IntArrayRef v, int64_t min_value) {
  if (v.size() != 1 && v.size() != N) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): " + std::string(name) + " must have 1 or " +
                                        std::to_string(N) + " values, got " + shape_str(v));
  }
  Spatial<N> p{};
  for (size_t i = 0; i < N; ++i) {
    p[i] = v[v.size() == N ? i : 0];
    if (p[i] < min_value) {
      throw_error(ErrorKind::Runtime, std::string(op) + "(): " + std::string(name) + " must be at least " +
                                          std::to_string(min_value) + ", got " + shape_str(v));
    }
  }
  return p;
}

// Spatial values as an INTS attribute; borrows them for the call.
template <size_t N>
ember_attr spatial_attr(const char* name, const Spatial<N>& p) {
  return dispatch::attr_ints(name, IntArrayRef(p.data(), N));
}

// An input without its batch dim ([C, H, W] for a 2-d op) is a batch of one.
Tensor as_batched(std::string_view op, const Tensor& x, int64_t spatial_dims = 2) {
  composite::check_rank(op, x, spatial_dims + 1, spatial_dims + 2, "input");
  return x.dim() == spatial_dims + 2 ? x : x.unsqueeze(0);
}

Tensor as_input_rank(const Tensor& out, const Tensor& x) { return x.dim() == out.dim() ? out : out.squeeze(0); }

// The spatial output sizes of a window sweep over a [N, C, spatial...]
// input; an error when the padded input is smaller than the dilated kernel.
template <size_t N>
Spatial<N> swept_size(std::string_view op, const Tensor& x, Spatial<N> kernel, Spatial<N> stride, Spatial<N> padding,
                      Spatial<N> dilation) {
  Spatial<N> out{};
  for (size_t i = 0; i < N; ++i) {
    const int64_t room = x.size(2 + i) + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1;
    if (room < 0) {
      throw_error(ErrorKind::Runtime, std::string(op) + "(): input " + shape_str(x.sizes()) + " padded by " +
                                          shape_str(IntArrayRef(padding.data(), N)) + " is smaller than the kernel " +
                                          shape_str(IntArrayRef(kernel.data(), N)) + " dilated by " +
                                          shape_str(IntArrayRef(dilation.data(), N)));
    }
    out[i] = room / stride[i] + 1;
  }
  return out;
}

// The [N, C, Ho, Wo, kh, kw] windows of a [N, C, H, W] input padded by
// `padding` with `fill`.
Tensor windows(std::string_view op, const Tensor& x, Pair kernel, Pair stride, Pair padding, Pair dilation,
               const Scalar& fill) {
  const auto [ho, wo] = swept_size(op, x, kernel, stride, padding, dilation);
  const Tensor xp = pad(x, {padding[1], padding[1], padding[0], padding[0]}, fill).contiguous();
  const int64_t hp = xp.size(2), wp = xp.size(3);
  const int64_t c_stride = hp * wp;
  return xp.as_strided({xp.size(0), xp.size(1), ho, wo, kernel[0], kernel[1]},
                       {xp.size(1) * c_stride, c_stride, stride[0] * wp, stride[1], dilation[0] * wp, dilation[1]});
}

// Note [Convolution as a matrix product]: the [N, C, Ho, Wo, kh, kw] windows
// of the padded input, regrouped as columns, times the weight as a matrix.
Tensor conv2d_by_matmul(std::string_view op, const Tensor& x, const Tensor& w, Pair stride, Pair padding, Pair dilation,
                        int64_t groups) {
  const int64_t n = x.size(0), o = w.size(0);
  const int64_t cg = w.size(1), kh = w.size(2), kw = w.size(3);
  const Tensor win = windows(op, x, {kh, kw}, stride, padding, dilation, 0);
  const int64_t ho = win.size(2), wo = win.size(3);
  // Columns [groups, Cg*kh*kw, N*Ho*Wo]: the whole batch in one product per
  // group, so the weight is never copied per sample.
  const Tensor cols = win.reshape({n, groups, cg, ho, wo, kh, kw})
                          .permute({1, 2, 5, 6, 0, 3, 4})
                          .reshape({groups, cg * kh * kw, n * ho * wo});
  return bmm(w.reshape({groups, o / groups, cg * kh * kw}), cols)
      .reshape({groups, o / groups, n, ho, wo})
      .permute({2, 0, 1, 3, 4})
      .reshape({n, o, ho, wo});
}

Tensor conv3d_by_depth_taps(const Tensor& x, const Tensor& w, Spatial<3> stride, Spatial<3> padding,
                            Spatial<3> dilation, int64_t groups);

// conv1d/2d/3d over N spatial dims: the backend's fused kernel when it has
// one, else the decomposition (a matrix product for 2-d, 2-d convolutions
// for 3-d).
template <size_t N>
Tensor conv_impl(std::string_view op, const Tensor& x_given, const Tensor& w_given,
                 const std::optional<Tensor>& bias_given, Spatial<N> stride, Spatial<N> padding, Spatial<N> dilation,
                 int64_t groups) {
  constexpr int64_t rank = N + 2;
  // Under autocast the bias joins the product in the lower precision (Note [Autocast]).
  const auto [x_cast, w, bias] = composite::in_lower_precision(x_given, w_given, bias_given);
  const Tensor x = as_batched(op, x_cast, N);
  composite::check_rank(op, w, rank, rank, "weight");
  if (x.dtype() != w.dtype() || (bias && bias->dtype() != x.dtype())) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): input (" + composite::dtype_str(x) + ") and weight (" +
                                        composite::dtype_str(w) + ") and bias must have the same dtype");
  }
  const int64_t c = x.size(1), o = w.size(0);
  if (groups <= 0 || o % groups != 0 || c != w.size(1) * groups) {
    throw_error(ErrorKind::Runtime,
                std::string(op) + "(): input " + shape_str(x_given.sizes()) + " and weight " + shape_str(w.sizes()) +
                    " do not fit groups=" + std::to_string(groups) +
                    " (expected input channels = weight.size(1) * groups, out channels divisible by groups)");
  }
  if (bias && bias->sizes() != DimVector{o}) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected bias of shape [" + std::to_string(o) + "], got " +
                                        shape_str(bias->sizes()));
  }
  Spatial<N> kernel{};
  for (size_t i = 0; i < N; ++i) kernel[i] = w.size(2 + i);
  swept_size(op, x, kernel, stride, padding, dilation);
  const auto run_kernel = [&](const dispatch::Op& kernel_op, std::initializer_list<Tensor> inputs) {
    return dispatch::call_single(kernel_op, inputs,
                                 {spatial_attr("stride", stride), spatial_attr("padding", padding),
                                  spatial_attr("dilation", dilation), dispatch::attr_int("groups", groups)});
  };
  const bool on_one_device = x.device() == w.device();
  if constexpr (N == 2) {
    // Note [conv2d_bias]: with a bias, a backend's conv2d_bias kernel adds
    // it as it writes each output (the CPU plugin hands it to oneDNN),
    // instead of a second pass over the output; without that kernel the
    // bias is a broadcast add after conv2d, which is also the op's
    // decomposition. Its derivative is conv2d's for x and w, and dy summed
    // over all but the channels for the bias.
    static const dispatch::Op& fused_with_bias = dispatch::op(dispatch::OpId::Conv2dBias);
    if (bias && on_one_device && bias->device() == x.device() && dispatch::use_composite_kernel(fused_with_bias, x)) {
      return as_input_rank(run_kernel(fused_with_bias, {x, w, *bias}), x_given);
    }
  }
  static const dispatch::Op& fused = dispatch::op(N == 2 ? dispatch::OpId::Conv2d : dispatch::OpId::Conv3d);
  Tensor out;
  if (on_one_device && dispatch::use_composite_kernel(fused, x)) {
    out = run_kernel(fused, {x, w});
  } else if constexpr (N == 2) {
    out = conv2d_by_matmul(op, x, w, stride, padding, dilation, groups);
  } else {
    out = conv3d_by_depth_taps(x, w, stride, padding, dilation, groups);
  }
  if (bias) out = out + bias->reshape(composite::channel_shape(o, rank));
  return as_input_rank(out, x_given);
}

// Note [conv3d as conv2d]: output depth j reads input depths
// j * stride + i * dilation for the kernel's depth taps i. Stacking those kd
// depth slices as channels (per group, tap-major) turns each output depth
// into one 2-d convolution with the weight's taps as channels, so the
// whole batch of N * Do planes is one conv2d, on the backend's kernel when
// it has one. It reads the input kd times over; a backend with a conv3d
// kernel never runs it.
Tensor conv3d_by_depth_taps(const Tensor& x, const Tensor& w, Spatial<3> stride, Spatial<3> padding,
                            Spatial<3> dilation, int64_t groups) {
  const int64_t n = x.size(0), c = x.size(1), o = w.size(0);
  const int64_t cg = w.size(1), kd = w.size(2);
  const Tensor xp = pad(x, {0, 0, 0, 0, padding[0], padding[0]}, 0).contiguous();
  const int64_t depth = xp.size(2), h = xp.size(3), wd = xp.size(4);
  const int64_t plane = h * wd;
  const int64_t d_out = (depth - dilation[0] * (kd - 1) - 1) / stride[0] + 1;
  const Tensor taps = xp.as_strided({n, d_out, groups, kd, cg, h, wd},
                                    {c * depth * plane, stride[0] * plane, cg * depth * plane, dilation[0] * plane,
                                     depth * plane, wd, 1});
  const Tensor planes = taps.reshape({n * d_out, groups * kd * cg, h, wd});
  const Tensor w2 = w.permute({0, 2, 1, 3, 4}).reshape({o, kd * cg, w.size(3), w.size(4)});
  const Tensor y = conv_impl<2>("conv3d", planes, w2, std::nullopt, {stride[1], stride[2]}, {padding[1], padding[2]},
                                {dilation[1], dilation[2]}, groups);
  return y.reshape({n, d_out, o, y.size(2), y.size(3)}).permute({0, 2, 1, 3, 4});
}

// conv_impl with the public functions' arguments: one value or one per spatial dim.
template <size_t N>
Tensor conv_with_args(std::string_view op, const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias,
                      IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_impl<N>(op, x, w, bias, spatial_arg<N>(op, "stride", stride, 1),
                      spatial_arg<N>(op, "padding", padding, 0), spatial_arg<N>(op, "dilation", dilation, 1), groups);
}

struct PoolArgs {
  Pair kernel, stride, padding, dilation;
};

PoolArgs pool_args(std::string_view op, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                   IntArrayRef dilation) {
  PoolArgs a;
  a.kernel = spatial_arg<2>(op, "kernel_size", kernel_size, 1);
  a.stride = stride.empty() ? a.kernel : spatial_arg<2>(op, "stride", stride, 1);
  a.padding = spatial_arg<2>(op, "padding", padding, 0);
  a.dilation = spatial_arg<2>(op, "dilation", dilation, 1);
  for (int i = 0; i < 2; ++i) {
    if (a.padding[i] > a.kernel[i] / 2) {
      throw_error(ErrorKind::Runtime, std::string(op) + "(): pad should be at most half of kernel size, but got pad=" +
                                          shape_str(padding) + " and kernel_size=" + shape_str(kernel_size));
    }
  }
  return a;
}

// A max pool's windows: padding is -inf, so it never wins.
Tensor max_pool_windows(const Tensor& x4, const PoolArgs& a) {
  return windows("max_pool2d", x4, a.kernel, a.stride, a.padding, a.dilation, -std::numeric_limits<double>::infinity());
}

// Note [Max pool ceil_mode]
// ceil_mode keeps a last, partial window when it starts inside the input or
// its top/left padding (PyTorch's rule). Rather than give kernels another
// attribute, the core pads the input's bottom and right edges with -inf as
// far as that window reaches past the padded input, then sweeps in floor
// mode: the added -inf never beats an input value, and a window scans its
// first tap before any added one, so values, argmax and gradients are
// PyTorch's, and the catalogue's max_pool2d and its derivative run unchanged.
Tensor pad_for_ceil_mode(const Tensor& x4, const PoolArgs& a) {
  Pair overhang{};
  for (int i = 0; i < 2; ++i) {
    const int64_t in = x4.size(2 + i), stride = a.stride[i];
    const int64_t reach = a.dilation[i] * (a.kernel[i] - 1) + 1;
    const int64_t rounded_up = in + 2 * a.padding[i] - reach + stride - 1;
    // Floor division: a kernel wider than the padded input makes it negative.
    int64_t out = (rounded_up >= 0 ? rounded_up / stride : -((-rounded_up + stride - 1) / stride)) + 1;
    if ((out - 1) * stride >= in + a.padding[i]) --out;
    overhang[i] = std::max<int64_t>(0, (out - 1) * stride + reach - (in + 2 * a.padding[i]));
  }
  if (overhang[0] == 0 && overhang[1] == 0) return x4;
  return pad(x4, {0, overhang[1], 0, overhang[0]}, -std::numeric_limits<double>::infinity());
}

// The [start, end) input rows averaged into output cell i (PyTorch's rule).
Tensor adaptive_mean_along(const Tensor& x, int64_t dim, int64_t out_size) {
  const int64_t in_size = x.size(dim);
  // Equal cells that tile the dim (one cell included): one mean over the
  // dim split in two.
  if (in_size % out_size == 0) {
    DimVector split = x.sizes();
    split[static_cast<size_t>(dim)] = out_size;
    split.insert(static_cast<size_t>(dim) + 1, in_size / out_size);
    const int64_t cell[] = {dim + 1};
    return mean(x.reshape(split), cell, false);
  }
  std::vector<Tensor> cells;
  for (int64_t i = 0; i < out_size; ++i) {
    const int64_t start = i * in_size / out_size;
    const int64_t end = ((i + 1) * in_size + out_size - 1) / out_size;
    const int64_t dims[] = {dim};
    cells.push_back(mean(x.slice(dim, start, end), dims, true));
  }
  return cat(cells, dim);
}

}  // namespace

Tensor pad(const Tensor& x, IntArrayRef padding, const Scalar& value) {
  if (padding.size() % 2 != 0 || static_cast<int64_t>(padding.size()) > 2 * x.dim()) {
    throw_error(ErrorKind::Runtime, "pad(): padding " + shape_str(padding) +
                                        " must have an even length of at most twice " + "the rank of the input " +
                                        shape_str(x.sizes()));
  }
  Tensor out = x;
  DimVector padded = x.sizes();
  for (size_t i = 0; i < padding.size() / 2; ++i) {
    const int64_t dim = x.dim() - 1 - static_cast<int64_t>(i);
    const int64_t before = padding[2 * i], after = padding[2 * i + 1];
    if (out.size(dim) + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0) < 0) {
      throw_error(ErrorKind::Runtime, "pad(): padding " + shape_str(padding) + " crops more than the input " +
                                          shape_str(x.sizes()) + " has");
    }
    out = out.narrow(dim, std::max<int64_t>(-before, 0),
                     out.size(dim) + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0));
    padded[static_cast<size_t>(dim)] = x.size(dim) + before + after;
  }
  // Unrecorded, the padded tensor is filled once and the input copied into
  // its interior: two passes, where a cat per padded dim copies it all again.
  // A trace keeps the cats, which it can fuse; it does not take writes into
  // views.
  if (!composite::recorded(x) && !dispatch::is_tracing(x)) {
    Tensor result = full(padded, value, TensorOptions(x.dtype(), x.device()));
    Tensor interior = result;
    for (size_t i = 0; i < padding.size() / 2; ++i) {
      const int64_t dim = x.dim() - 1 - static_cast<int64_t>(i);
      interior = interior.narrow(dim, std::max<int64_t>(padding[2 * i], 0), out.size(dim));
    }
    interior.copy_(out);
    return result;
  }
  for (size_t i = 0; i < padding.size() / 2; ++i) {
    const int64_t dim = x.dim() - 1 - static_cast<int64_t>(i);
    const int64_t before = padding[2 * i], after = padding[2 * i + 1];
    if (before <= 0 && after <= 0) continue;
    DimVector side = out.sizes();
    side[dim] = std::max<int64_t>(before, 0);
    const Tensor lead = full(side, value, TensorOptions(x.dtype(), x.device()));
    side[dim] = std::max<int64_t>(after, 0);
    out = cat({lead, out, full(side, value, TensorOptions(x.dtype(), x.device()))}, dim);
  }
  return out;
}

Tensor conv1d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  composite::check_rank("conv1d", x, 2, 3, "input");
  composite::check_rank("conv1d", w, 3, 3, "weight");
  for (const auto& [name, v] :
       {std::pair<const char*, IntArrayRef>{"stride", stride}, {"padding", padding}, {"dilation", dilation}}) {
    if (v.size() != 1)
      throw_error(ErrorKind::Runtime, std::string("conv1d(): ") + name + " must have 1 value, got " + shape_str(v));
  }
  // A 1-D convolution is a 2-D one over a height of 1.
  const Tensor out = conv_impl<2>("conv1d", x.unsqueeze(-2), w.unsqueeze(-2), bias, {1, stride[0]}, {0, padding[0]},
                                 {1, dilation[0]}, groups);
  return out.squeeze(-2);
}

Tensor conv2d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_with_args<2>("conv2d", x, w, bias, stride, padding, dilation, groups);
}

Tensor conv3d(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias, IntArrayRef stride,
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv_with_args<3>("conv3d", x, w, bias, stride, padding, dilation, groups);
}

namespace {

// The transposed convolution over N spatial dims as the input gradient of
// the N-d convolution, on the backend's kernel for it; nullopt without one.
template <size_t N>
std::optional<Tensor> conv_transpose_by_kernel(std::string_view op, const Tensor& x, const Tensor& w,
                                               IntArrayRef stride_given, IntArrayRef padding_given,
                                               IntArrayRef output_padding_given, IntArrayRef dilation_given,
                                               int64_t groups) {
  static const dispatch::Op& transposed =
      dispatch::op(N == 2 ? dispatch::OpId::Conv2dBackwardInput : dispatch::OpId::Conv3dBackwardInput);
  if (x.device() != w.device() || x.dtype() != w.dtype() || !dispatch::use_composite_kernel(transposed, x)) {
    return std::nullopt;
  }
  const Spatial<N> stride = spatial_arg<N>(op, "stride", stride_given, 1);
  const Spatial<N> padding = spatial_arg<N>(op, "padding", padding_given, 0);
  const Spatial<N> output_padding = spatial_arg<N>(op, "output_padding", output_padding_given, 0);
  const Spatial<N> dilation = spatial_arg<N>(op, "dilation", dilation_given, 1);
  // An output padding of a stride or more (allowed below the dilation) makes
  // an output that the convolution would not map back onto x's size.
  for (size_t d = 0; d < N; ++d) {
    if (output_padding[d] >= stride[d]) return std::nullopt;
  }
  Spatial<N + 2> sizes{x.size(0), w.size(1) * groups};
  for (size_t d = 0; d < N; ++d) {
    sizes[2 + d] = (x.size(2 + d) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (w.size(2 + d) - 1) +
                   output_padding[d] + 1;
  }
  return dispatch::call_single(transposed, {x.contiguous(), w.contiguous()},
                               {spatial_attr("stride", stride), spatial_attr("padding", padding),
                                spatial_attr("dilation", dilation), dispatch::attr_int("groups", groups),
                                spatial_attr("input_sizes", sizes)});
}

}  // namespace

std::optional<Tensor> conv_transpose2d_by_kernel(const Tensor& x, const Tensor& w, IntArrayRef stride,
                                                 IntArrayRef padding, IntArrayRef output_padding, IntArrayRef dilation,
                                                 int64_t groups) {
  return conv_transpose_by_kernel<2>("conv_transpose2d", x, w, stride, padding, output_padding, dilation, groups);
}

std::optional<Tensor> conv_transpose3d_by_kernel(const Tensor& x, const Tensor& w, IntArrayRef stride,
                                                 IntArrayRef padding, IntArrayRef output_padding, IntArrayRef dilation,
                                                 int64_t groups) {
  return conv_transpose_by_kernel<3>("conv_transpose3d", x, w, stride, padding, output_padding, dilation, groups);
}

ValuesIndices max_pool2d_with_indices(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                      IntArrayRef dilation, bool ceil_mode) {
  composite::check_floating("max_pool2d", x);
  const PoolArgs a = pool_args("max_pool2d", kernel_size, stride, padding, dilation);
  const Tensor x4 = as_batched("max_pool2d", x);
  const Tensor swept = ceil_mode ? pad_for_ceil_mode(x4, a) : x4;
  const auto [ho, wo] = swept_size("max_pool2d", swept, a.kernel, a.stride, a.padding, a.dilation);
  const TensorOptions index_options(DType::Int64, x.device());
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::MaxPool2d);
  if (dispatch::use_composite_kernel(fused, swept)) {
    const std::vector<Tensor> outputs =
        dispatch::call_outputs(fused, {swept}, 2,
                               {spatial_attr("kernel_size", a.kernel), spatial_attr("stride", a.stride),
                                spatial_attr("padding", a.padding), spatial_attr("dilation", a.dilation)});
    Tensor indices = outputs[1];
    if (swept.size(3) != x4.size(3)) {
      // The kernel counted columns of the widened plane; no argmax lies in
      // the -inf columns, so only the row length changes.
      const Tensor swept_width = scalar_tensor(swept.size(3), index_options);
      indices = floor_divide(indices, swept_width) * x4.size(3) + remainder(indices, swept_width);
    }
    return {as_input_rank(outputs[0], x), as_input_rank(indices, x)};
  }
  const ValuesIndices best = max(max_pool_windows(swept, a).flatten(4), 4);
  // Window offset (i, j) of output cell (oh, ow) is input row
  // oh * stride - padding + i * dilation, and likewise for columns.
  const Tensor i = floor_divide(best.indices, scalar_tensor(a.kernel[1], index_options));
  const Tensor j = remainder(best.indices, scalar_tensor(a.kernel[1], index_options));
  const Tensor rows = arange(ho, index_options).reshape({ho, 1}) * a.stride[0] - a.padding[0] + i * a.dilation[0];
  const Tensor cols = arange(wo, index_options) * a.stride[1] - a.padding[1] + j * a.dilation[1];
  return {as_input_rank(best.values, x), as_input_rank(rows * x4.size(3) + cols, x)};
}

Tensor max_pool2d(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::MaxPool2d);
  if (dispatch::use_composite_kernel(fused, x)) {
    return max_pool2d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode).values;
  }
  // The decomposition's own derivative (amax) splits ties evenly.
  composite::check_floating("max_pool2d", x);
  const PoolArgs a = pool_args("max_pool2d", kernel_size, stride, padding, dilation);
  const Tensor x4 = as_batched("max_pool2d", x);
  return as_input_rank(amax(max_pool_windows(ceil_mode ? pad_for_ceil_mode(x4, a) : x4, a), {4, 5}), x);
}

Tensor avg_pool2d(const Tensor& x, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool count_include_pad) {
  composite::check_floating("avg_pool2d", x);
  const PoolArgs a = pool_args("avg_pool2d", kernel_size, stride, padding, {1});
  const Tensor x4 = as_batched("avg_pool2d", x);
  swept_size("avg_pool2d", x4, a.kernel, a.stride, a.padding, a.dilation);
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::AvgPool2d);
  if (dispatch::use_composite_kernel(fused, x4)) {
    return as_input_rank(dispatch::call_single(fused, {x4},
                                               {spatial_attr("kernel_size", a.kernel), spatial_attr("stride", a.stride),
                                                spatial_attr("padding", a.padding),
                                                dispatch::attr_bool("count_include_pad", count_include_pad)}),
                         x);
  }
  const Tensor win = windows("avg_pool2d", x4, a.kernel, a.stride, a.padding, a.dilation, 0);
  if (count_include_pad) return as_input_rank(mean(win, {4, 5}), x);
  // Divide by the number of real (unpadded) elements in each window: the
  // same pooling over ones gives it without reading the data.
  const Tensor ones_plane = ones({1, 1, x4.size(2), x4.size(3)}, TensorOptions(x.dtype(), x.device()));
  const Tensor counts = sum(windows("avg_pool2d", ones_plane, a.kernel, a.stride, a.padding, a.dilation, 0), {4, 5});
  return as_input_rank(sum(win, {4, 5}) / counts, x);
}

Tensor adaptive_avg_pool2d(const Tensor& x, IntArrayRef output_size) {
  composite::check_floating("adaptive_avg_pool2d", x);
  const Pair out = spatial_arg<2>("adaptive_avg_pool2d", "output_size", output_size, 1);
  const Tensor x4 = as_batched("adaptive_avg_pool2d", x);
  // A global average is one mean over the plane (a network's last pooling).
  if (out[0] == 1 && out[1] == 1) {
    const int64_t plane[] = {2, 3};
    return as_input_rank(mean(x4, plane, true), x);
  }
  // Each cell is a rectangle, so averaging rows then columns is exact.
  return as_input_rank(adaptive_mean_along(adaptive_mean_along(x4, 2, out[0]), 3, out[1]), x);
}

}  // namespace ember
