// The primitives of sdk/docs/ops.md: names, arity, dispatch dtype and meta
// functions. Arguments are validated by each op's public function before
// dispatch, so a meta function only derives output metadata.
#include <string>

#include "core/shape.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"

namespace ember::dispatch {
namespace {

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

DimVector keepdim_sizes(const OpCall& call, IntArrayRef dims) {
  DimVector sizes = call.inputs[0].sizes();
  if (dims.empty()) {
    for (auto& s : sizes) s = 1;
  } else {
    for (int64_t d : dims) sizes[d] = 1;
  }
  return sizes;
}

DType sum_dtype(DType in) { return is_integral(in, true) ? DType::Int64 : in; }

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

// [N, C_out, Ho, Wo] of a window sweep over a [N, C, H, W] input, with
// Ho = (H + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1.
DimVector swept_sizes(const OpCall& call, const char* op, int64_t channels, int64_t kernel_h, int64_t kernel_w) {
  const Tensor& x = call.inputs[0];
  const IntArrayRef stride = call.attr_ints(op, "stride");
  const IntArrayRef padding = call.attr_ints(op, "padding");
  const ember_attr* dilation = call.find_attr("dilation");
  const int64_t kernel[] = {kernel_h, kernel_w};
  DimVector sizes{x.size(0), channels, 0, 0};
  for (int i = 0; i < 2; ++i) {
    const int64_t d = dilation != nullptr ? dilation->ints[i] : 1;
    sizes[2 + i] = (x.size(2 + i) + 2 * padding[i] - d * (kernel[i] - 1) - 1) / stride[i] + 1;
  }
  return sizes;
}

void meta_conv2d(const OpCall& call, TensorMeta* out) {
  const Tensor& w = call.inputs[1];
  out[0].sizes = swept_sizes(call, "conv2d", w.size(0), w.size(2), w.size(3));
  out[0].dtype = call.inputs[0].dtype();
}

void meta_max_pool2d(const OpCall& call, TensorMeta* out) {
  const IntArrayRef kernel = call.attr_ints("max_pool2d", "kernel_size");
  out[0].sizes = swept_sizes(call, "max_pool2d", call.inputs[0].size(1), kernel[0], kernel[1]);
  out[0].dtype = call.inputs[0].dtype();
  out[1].sizes = out[0].sizes;
  out[1].dtype = DType::Int64;
}

void meta_avg_pool2d(const OpCall& call, TensorMeta* out) {
  const IntArrayRef kernel = call.attr_ints("avg_pool2d", "kernel_size");
  out[0].sizes = swept_sizes(call, "avg_pool2d", call.inputs[0].size(1), kernel[0], kernel[1]);
  out[0].dtype = call.inputs[0].dtype();
}

// reduction: 0 "none" gives one loss per row, 1 "mean" and 2 "sum" a scalar.
void meta_cross_entropy(const OpCall& call, TensorMeta* out) {
  if (call.attr_int("cross_entropy", "reduction") == 0) out[0].sizes = {call.inputs[0].size(0)};
  out[0].dtype = call.inputs[0].dtype();
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

}  // namespace

void register_catalogue(OpRegistry& registry) {
  auto add = [&registry](const char* name, int num_inputs, MetaFn meta, int dispatch_from = 0) {
    registry.add(OpSchema{name, num_inputs, 1, meta, dispatch_from});
  };
  for (const char* name : {"neg", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos",
                           "tan", "tanh", "sigmoid", "erf", "reciprocal", "floor", "ceil", "round", "trunc",
                           "bitwise_not"}) {
    add(name, 1, meta_like_input0);
  }
  add("logical_not", 1, meta_bool_like_input0);
  for (const char* name : {"add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "maximum", "minimum",
                           "bitwise_and", "bitwise_or", "bitwise_xor"}) {
    add(name, 2, meta_like_input0);
  }
  for (const char* name : {"logical_and", "logical_or", "logical_xor", "eq", "ne", "lt", "le", "gt", "ge"}) {
    add(name, 2, meta_bool_like_input0);
  }
  add("where", 3, meta_like_input1, 1);
  add("copy", 1, meta_needs_output);
  for (const char* name : {"fill", "arange", "uniform", "normal"}) add(name, 0, meta_needs_output, -1);
  add("sum", 1, meta_sum_like);
  add("prod", 1, meta_sum_like);
  for (const char* name : {"mean", "amax", "amin"}) add(name, 1, meta_reduce_same_dtype);
  add("argmax", 1, meta_arg_reduce);
  add("argmin", 1, meta_arg_reduce);
  add("mm", 2, meta_mm);
  add("bmm", 2, meta_bmm);
  add("index_select", 2, meta_index_select);
  add("gather", 2, meta_gather);
  add("scatter_add", 3, meta_like_input0);
  add("cat", -1, meta_cat);
  auto add_composite = [&registry](const char* name, int num_inputs, MetaFn meta, int num_outputs = 1,
                                   int abi_minor = 0) {
    registry.add(OpSchema{name, num_inputs, num_outputs, meta, 0, /*composite=*/true, abi_minor});
  };
  for (const char* name : {"softmax", "log_softmax"}) add_composite(name, 1, meta_like_input0);
  add_composite("conv2d", 2, meta_conv2d);
  add_composite("conv2d_backward_input", 2, meta_input_sizes);
  add_composite("conv2d_backward_weight", 2, meta_weight_sizes);
  add_composite("max_pool2d", 1, meta_max_pool2d, 2, /*abi_minor=*/1);
  add_composite("max_pool2d_backward", 2, meta_like_input1, 1, /*abi_minor=*/1);
  add_composite("avg_pool2d", 1, meta_avg_pool2d, 1, /*abi_minor=*/1);
  add_composite("avg_pool2d_backward", 1, meta_input_sizes, 1, /*abi_minor=*/1);
  add_composite("layer_norm", 3, meta_like_input0, 1, /*abi_minor=*/1);
  add_composite("cross_entropy", 2, meta_cross_entropy, 1, /*abi_minor=*/1);
  add("cumsum", 1, meta_cumsum);
  registry.add(OpSchema{"sort", 1, 2, meta_sort, 0});
}

}  // namespace ember::dispatch
