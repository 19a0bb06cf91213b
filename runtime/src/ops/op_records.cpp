// The catalogue's records (Note [One record per op]), one table per family,
// in OpId order. Attributes are named as sdk/docs/ops.md names them.
#include <array>
#include <vector>

#include "ops/meta_functions.h"
#include "ops/op_record.h"

namespace ember::ops {
namespace {

using autograd::DerivativeMaker;
using dispatch::MetaFn;
using dispatch::OpKind;

// Outputs that carry no gradient: bool or integer results, and the backward
// ops only derivatives call (with grad mode off).
constexpr DerivativeMaker kNoGradient = nullptr;

constexpr OpRecord unary(OpId id, const char* name, DTypeRule rule, DerivativeMaker derivative,
                         MetaFn meta = meta_like_input0, int abi_minor = 0) {
  return {id, name, 1, 1, "", meta, derivative, rule, OpKind::Primitive, abi_minor};
}

constexpr OpRecord binary(OpId id, const char* name, DTypeRule rule, DerivativeMaker derivative, int abi_minor = 0) {
  return {id,        name, 2, 1, "", rule == DTypeRule::Compare ? meta_bool_like_input0 : meta_like_input0,
          derivative, rule, OpKind::Primitive, abi_minor};
}

// The inverse trigonometric and special functions came with ABI 1.5's
// catalogue.
constexpr OpRecord special_unary(OpId id, const char* name, DerivativeMaker derivative) {
  return unary(id, name, DTypeRule::FloatPromoting, derivative, meta_like_input0, /*abi_minor=*/5);
}

constexpr OpRecord primitive(OpId id, const char* name, int num_inputs, int num_outputs, const char* attributes,
                             MetaFn meta, DerivativeMaker derivative, int dispatch_dtype_from = 0) {
  return {id,
          name,
          num_inputs,
          num_outputs,
          attributes,
          meta,
          derivative,
          DTypeRule::Custom,
          OpKind::Primitive,
          0,
          dispatch_dtype_from};
}

constexpr OpRecord composite(OpId id, const char* name, int num_inputs, int num_outputs, const char* attributes,
                             MetaFn meta, DerivativeMaker derivative, int abi_minor = 0,
                             bool derivative_reads_outputs = false) {
  return {id,
          name,
          num_inputs,
          num_outputs,
          attributes,
          meta,
          derivative,
          DTypeRule::Custom,
          OpKind::Composite,
          abi_minor,
          0,
          derivative_reads_outputs};
}

constexpr OpRecord view(OpId id, const char* name, const char* attributes, MetaFn meta, DerivativeMaker derivative) {
  return {id, name, 1, 1, attributes, meta, derivative, DTypeRule::Custom, OpKind::View};
}

using namespace autograd;  // the derivatives, d_*

constexpr OpRecord kUnary[] = {
    unary(OpId::Neg, "neg", DTypeRule::Numeric, d_neg),
    unary(OpId::Abs, "abs", DTypeRule::Numeric, d_abs),
    unary(OpId::Sign, "sign", DTypeRule::Numeric, d_zero),
    unary(OpId::Exp, "exp", DTypeRule::FloatPromoting, d_exp),
    unary(OpId::Log, "log", DTypeRule::FloatPromoting, d_log),
    unary(OpId::Log1p, "log1p", DTypeRule::FloatPromoting, d_log1p),
    unary(OpId::Expm1, "expm1", DTypeRule::FloatPromoting, d_exp),
    unary(OpId::Sqrt, "sqrt", DTypeRule::FloatPromoting, d_sqrt),
    unary(OpId::Rsqrt, "rsqrt", DTypeRule::FloatPromoting, d_rsqrt),
    unary(OpId::Sin, "sin", DTypeRule::FloatPromoting, d_sin),
    unary(OpId::Cos, "cos", DTypeRule::FloatPromoting, d_cos),
    unary(OpId::Tan, "tan", DTypeRule::FloatPromoting, d_tan),
    unary(OpId::Tanh, "tanh", DTypeRule::FloatPromoting, d_tanh),
    unary(OpId::Sigmoid, "sigmoid", DTypeRule::FloatPromoting, d_sigmoid),
    unary(OpId::Erf, "erf", DTypeRule::FloatPromoting, d_erf),
    special_unary(OpId::Erfc, "erfc", d_erfc),
    special_unary(OpId::Erfinv, "erfinv", d_erfinv),
    special_unary(OpId::Asin, "asin", d_asin),
    special_unary(OpId::Acos, "acos", d_acos),
    special_unary(OpId::Atan, "atan", d_atan),
    special_unary(OpId::Lgamma, "lgamma", d_lgamma),
    special_unary(OpId::Digamma, "digamma", d_digamma),
    unary(OpId::Reciprocal, "reciprocal", DTypeRule::FloatPromoting, d_reciprocal),
    unary(OpId::Floor, "floor", DTypeRule::Rounding, d_zero),
    unary(OpId::Ceil, "ceil", DTypeRule::Rounding, d_zero),
    unary(OpId::Round, "round", DTypeRule::Rounding, d_zero),
    unary(OpId::Trunc, "trunc", DTypeRule::Rounding, d_zero),
    unary(OpId::BitwiseNot, "bitwise_not", DTypeRule::Integral, kNoGradient),
    unary(OpId::LogicalNot, "logical_not", DTypeRule::Any, kNoGradient, meta_bool_like_input0),
};

constexpr OpRecord kBinary[] = {
    binary(OpId::Add, "add", DTypeRule::Arithmetic, d_add),
    binary(OpId::Sub, "sub", DTypeRule::Arithmetic, d_sub),
    binary(OpId::Mul, "mul", DTypeRule::Arithmetic, d_mul),
    binary(OpId::Div, "div", DTypeRule::TrueDivide, d_div),
    binary(OpId::FloorDivide, "floor_divide", DTypeRule::Arithmetic, d_floor_divide),
    binary(OpId::Remainder, "remainder", DTypeRule::Arithmetic, d_remainder),
    binary(OpId::Pow, "pow", DTypeRule::Arithmetic, d_pow),
    binary(OpId::Maximum, "maximum", DTypeRule::Arithmetic, d_maximum),
    binary(OpId::Minimum, "minimum", DTypeRule::Arithmetic, d_minimum),
    binary(OpId::Atan2, "atan2", DTypeRule::TrueDivide, d_atan2, /*abi_minor=*/5),
    binary(OpId::BitwiseAnd, "bitwise_and", DTypeRule::Bitwise, kNoGradient),
    binary(OpId::BitwiseOr, "bitwise_or", DTypeRule::Bitwise, kNoGradient),
    binary(OpId::BitwiseXor, "bitwise_xor", DTypeRule::Bitwise, kNoGradient),
    binary(OpId::LogicalAnd, "logical_and", DTypeRule::Compare, kNoGradient),
    binary(OpId::LogicalOr, "logical_or", DTypeRule::Compare, kNoGradient),
    binary(OpId::LogicalXor, "logical_xor", DTypeRule::Compare, kNoGradient),
    binary(OpId::Eq, "eq", DTypeRule::Compare, kNoGradient),
    binary(OpId::Ne, "ne", DTypeRule::Compare, kNoGradient),
    binary(OpId::Lt, "lt", DTypeRule::Compare, kNoGradient),
    binary(OpId::Le, "le", DTypeRule::Compare, kNoGradient),
    binary(OpId::Gt, "gt", DTypeRule::Compare, kNoGradient),
    binary(OpId::Ge, "ge", DTypeRule::Compare, kNoGradient),
    primitive(OpId::Where, "where", 3, 1, "", meta_like_input1, d_where, /*dispatch_dtype_from=*/1),
};

// Factories have no tensor input: their derivative-less records pass no
// gradient anywhere (what they overwrite gets none).
constexpr OpRecord kCopyAndFactories[] = {
    primitive(OpId::Copy, "copy", 1, 1, "", meta_needs_output, d_copy),
    primitive(OpId::Fill, "fill", 0, 1, "value", meta_needs_output, kNoGradient, -1),
    primitive(OpId::Arange, "arange", 0, 1, "start step", meta_needs_output, kNoGradient, -1),
    primitive(OpId::Uniform, "uniform", 0, 1, "low high seed offset", meta_needs_output, kNoGradient, -1),
    primitive(OpId::Normal, "normal", 0, 1, "mean std seed offset", meta_needs_output, kNoGradient, -1),
};

constexpr OpRecord kReductionsScansSorting[] = {
    primitive(OpId::Sum, "sum", 1, 1, "dims keepdim", meta_sum_like, d_sum),
    primitive(OpId::Prod, "prod", 1, 1, "dims keepdim", meta_sum_like, d_prod),
    primitive(OpId::Mean, "mean", 1, 1, "dims keepdim", meta_reduce_same_dtype, d_mean),
    primitive(OpId::Amax, "amax", 1, 1, "dims keepdim", meta_reduce_same_dtype, d_amax),
    primitive(OpId::Amin, "amin", 1, 1, "dims keepdim", meta_reduce_same_dtype, d_amin),
    primitive(OpId::Argmax, "argmax", 1, 1, "dim keepdim", meta_arg_reduce, kNoGradient),
    primitive(OpId::Argmin, "argmin", 1, 1, "dim keepdim", meta_arg_reduce, kNoGradient),
    primitive(OpId::Cumsum, "cumsum", 1, 1, "dim", meta_cumsum, d_cumsum),
    primitive(OpId::Sort, "sort", 1, 2, "dim descending stable", meta_sort, d_sort),
};

constexpr OpRecord kLinalgAndIndexing[] = {
    primitive(OpId::Mm, "mm", 2, 1, "", meta_mm, d_mm),
    primitive(OpId::Bmm, "bmm", 2, 1, "", meta_bmm, d_bmm),
    primitive(OpId::IndexSelect, "index_select", 2, 1, "dim", meta_index_select, d_index_select),
    primitive(OpId::Gather, "gather", 2, 1, "dim", meta_gather, d_gather),
    primitive(OpId::ScatterAdd, "scatter_add", 3, 1, "dim", meta_like_input0, d_scatter_add),
    primitive(OpId::Cat, "cat", -1, 1, "dim", meta_cat, d_cat),
};

constexpr OpRecord kComposites[] = {
    composite(OpId::Softmax, "softmax", 1, 1, "dim", meta_like_input0, d_softmax, /*abi_minor=*/0,
              /*derivative_reads_outputs=*/true),
    composite(OpId::LogSoftmax, "log_softmax", 1, 1, "dim", meta_like_input0, d_log_softmax, /*abi_minor=*/0,
              /*derivative_reads_outputs=*/true),
    composite(OpId::Conv2d, "conv2d", 2, 1, "stride padding dilation groups", meta_convolution, d_conv2d),
    composite(OpId::Conv2dBackwardInput, "conv2d_backward_input", 2, 1, "stride padding dilation groups input_sizes",
              meta_input_sizes, d_conv2d_backward_input),
    composite(OpId::Conv2dBackwardWeight, "conv2d_backward_weight", 2, 1, "stride padding dilation groups weight_sizes",
              meta_weight_sizes, kNoGradient),
    composite(OpId::MaxPool2d, "max_pool2d", 1, 2, "kernel_size stride padding dilation", meta_max_pool2d, d_max_pool2d,
              /*abi_minor=*/1),
    composite(OpId::MaxPool2dBackward, "max_pool2d_backward", 2, 1, "kernel_size stride padding dilation",
              meta_like_input1, kNoGradient, /*abi_minor=*/1),
    composite(OpId::AvgPool2d, "avg_pool2d", 1, 1, "kernel_size stride padding count_include_pad", meta_avg_pool2d,
              d_avg_pool2d, /*abi_minor=*/1),
    composite(OpId::AvgPool2dBackward, "avg_pool2d_backward", 1, 1,
              "kernel_size stride padding count_include_pad input_sizes", meta_input_sizes, kNoGradient,
              /*abi_minor=*/1),
    composite(OpId::LayerNorm, "layer_norm", 3, 1, "normalized_ndim eps", meta_like_input0, d_layer_norm,
              /*abi_minor=*/1),
    composite(OpId::CrossEntropy, "cross_entropy", 2, 1, "ignore_index reduction label_smoothing", meta_cross_entropy,
              d_cross_entropy, /*abi_minor=*/1),
    composite(OpId::ScaledDotProductAttention, "scaled_dot_product_attention", -1, 2, "is_causal scale", meta_attention,
              d_scaled_dot_product_attention, /*abi_minor=*/2,
              /*derivative_reads_outputs=*/true),
    composite(OpId::ScaledDotProductAttentionBackward, "scaled_dot_product_attention_backward", -1, 3,
              "is_causal scale", meta_attention_backward, kNoGradient, /*abi_minor=*/2),
    composite(OpId::Gelu, "gelu", 1, 1, "approximate", meta_like_input0, d_gelu, /*abi_minor=*/5),
    composite(OpId::GeluBackward, "gelu_backward", 2, 1, "approximate", meta_like_input0, kNoGradient,
              /*abi_minor=*/5),
    composite(OpId::SoftmaxBackward, "softmax_backward", 2, 1, "dim", meta_like_input0, kNoGradient,
              /*abi_minor=*/6),
    composite(OpId::LogSoftmaxBackward, "log_softmax_backward", 2, 1, "dim", meta_like_input0, kNoGradient,
              /*abi_minor=*/6),
    composite(OpId::LayerNormBackward, "layer_norm_backward", 3, 3, "normalized_ndim eps", meta_layer_norm_backward,
              kNoGradient, /*abi_minor=*/6),
    composite(OpId::CrossEntropyBackward, "cross_entropy_backward", 3, 1, "ignore_index reduction label_smoothing",
              meta_like_input1, kNoGradient, /*abi_minor=*/6),
    composite(OpId::Conv3d, "conv3d", 2, 1, "stride padding dilation groups", meta_convolution, d_conv3d,
              /*abi_minor=*/7),
    composite(OpId::Conv3dBackwardInput, "conv3d_backward_input", 2, 1, "stride padding dilation groups input_sizes",
              meta_input_sizes, d_conv3d_backward_input, /*abi_minor=*/7),
    composite(OpId::Conv3dBackwardWeight, "conv3d_backward_weight", 2, 1, "stride padding dilation groups weight_sizes",
              meta_weight_sizes, kNoGradient, /*abi_minor=*/7),
    composite(OpId::Conv2dBias, "conv2d_bias", 3, 1, "stride padding dilation groups", meta_convolution,
              d_conv2d_bias, /*abi_minor=*/8),
    composite(OpId::LstmLayer, "lstm_layer", 6, 4, "reverse workspace_bytes", meta_lstm_layer, d_lstm_layer,
              /*abi_minor=*/9, /*derivative_reads_outputs=*/true),
    composite(OpId::LstmLayerWorkspaceBytes, "lstm_layer_workspace_bytes", 3, 1, "reverse",
              meta_lstm_layer_workspace_bytes, kNoGradient, /*abi_minor=*/9),
    composite(OpId::LstmLayerBackward, "lstm_layer_backward", 13, 6, "reverse", meta_lstm_layer_backward, kNoGradient,
              /*abi_minor=*/9),
    composite(OpId::AdamUpdate, "adam_update", 5, 4,
              "lr beta1 beta2 eps weight_decay amsgrad maximize decoupled_weight_decay step_size "
              "bias_correction2_sqrt",
              meta_optimizer_update, kNoGradient, /*abi_minor=*/10),
    composite(OpId::SgdUpdate, "sgd_update", 3, 2,
              "lr momentum dampening weight_decay nesterov maximize init_momentum_buffer", meta_optimizer_update,
              kNoGradient, /*abi_minor=*/10),
    composite(OpId::RmspropUpdate, "rmsprop_update", 5, 4, "lr alpha eps weight_decay momentum centered maximize",
              meta_optimizer_update, kNoGradient, /*abi_minor=*/10),
    composite(OpId::MmBias, "mm_bias", 3, 1, "", meta_mm, d_mm_bias, /*abi_minor=*/11),
};

// Outputs after the first that are integers (info, pivots) carry no gradient;
// each derivative reads the outputs it needs (Note [Derivatives that read
// outputs]).
constexpr OpRecord factorization(OpId id, const char* name, int num_inputs, int num_outputs, const char* attributes,
                                 MetaFn meta, DerivativeMaker derivative) {
  return {id,
          name,
          num_inputs,
          num_outputs,
          attributes,
          meta,
          derivative,
          DTypeRule::Custom,
          OpKind::Primitive,
          /*abi_minor=*/3,
          0,
          /*derivative_reads_outputs=*/true};
}

constexpr OpRecord kFactorizations[] = {
    factorization(OpId::LinalgCholeskyEx, "linalg_cholesky_ex", 1, 2, "", meta_linalg_cholesky, d_linalg_cholesky),
    factorization(OpId::LinalgLuFactorEx, "linalg_lu_factor_ex", 1, 3, "", meta_linalg_lu_factor, d_linalg_lu_factor),
    factorization(OpId::LinalgSolveTriangular, "linalg_solve_triangular", 2, 1, "upper unitriangular", meta_like_input1,
                  d_linalg_solve_triangular),
    factorization(OpId::LinalgQr, "linalg_qr", 1, 2, "mode", meta_linalg_qr, d_linalg_qr),
    factorization(OpId::LinalgEigh, "linalg_eigh", 1, 2, "upper", meta_linalg_eigh, d_linalg_eigh),
    factorization(OpId::LinalgSvd, "linalg_svd", 1, 3, "full_matrices", meta_linalg_svd, d_linalg_svd),
};

// view, squeeze and unsqueeze keep the elements in order: one derivative.
constexpr OpRecord kViews[] = {
    view(OpId::View, "view", "sizes", meta_view, d_view),
    view(OpId::Permute, "permute", "dims", meta_permute, d_permute),
    view(OpId::Transpose, "transpose", "dim0 dim1", meta_transpose, d_transpose),
    view(OpId::Expand, "expand", "sizes", meta_expand, d_expand),
    view(OpId::Squeeze, "squeeze", "dims", meta_squeeze, d_view),
    view(OpId::Unsqueeze, "unsqueeze", "dim", meta_unsqueeze, d_view),
    view(OpId::Slice, "slice", "dim start end step", meta_slice, d_slice),
    view(OpId::Select, "select", "dim index", meta_select, d_select),
    view(OpId::AsStrided, "as_strided", "sizes strides storage_offset", meta_as_strided, d_as_strided),
};

std::vector<OpRecord> all_records() {
  std::vector<OpRecord> all;
  for (std::span<const OpRecord> family :
       {std::span<const OpRecord>(kUnary), std::span<const OpRecord>(kBinary),
        std::span<const OpRecord>(kCopyAndFactories), std::span<const OpRecord>(kReductionsScansSorting),
        std::span<const OpRecord>(kLinalgAndIndexing), std::span<const OpRecord>(kComposites),
        std::span<const OpRecord>(kFactorizations), std::span<const OpRecord>(kViews)}) {
    all.insert(all.end(), family.begin(), family.end());
  }
  return all;
}

}  // namespace

std::span<const OpRecord> op_records() {
  static const std::vector<OpRecord> records = all_records();
  return records;
}

}  // namespace ember::ops
