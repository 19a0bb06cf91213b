#pragma once

#include <cstdint>

namespace ember::dispatch {

// Every op of the catalogue, by family, in the order of its records
// (ops/op_records.cpp); the registry checks that record i has id i. Code in
// the core names ops by id; names exist for the ABI and for messages.
enum class OpId : uint16_t {
  // Elementwise unary.
  Neg,
  Abs,
  Sign,
  Exp,
  Log,
  Log1p,
  Expm1,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tan,
  Tanh,
  Sigmoid,
  Erf,
  Erfc,
  Erfinv,
  Asin,
  Acos,
  Atan,
  Lgamma,
  Digamma,
  Reciprocal,
  Floor,
  Ceil,
  Round,
  Trunc,
  BitwiseNot,
  LogicalNot,
  // Elementwise binary and ternary.
  Add,
  Sub,
  Mul,
  Div,
  FloorDivide,
  Remainder,
  Pow,
  Maximum,
  Minimum,
  Atan2,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  LogicalAnd,
  LogicalOr,
  LogicalXor,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Where,
  // Copies and factories.
  Copy,
  Fill,
  Arange,
  Uniform,
  Normal,
  // Reductions, scans and sorting.
  Sum,
  Prod,
  Mean,
  Amax,
  Amin,
  Argmax,
  Argmin,
  Cumsum,
  Sort,
  // Linear algebra and indexing.
  Mm,
  Bmm,
  IndexSelect,
  Gather,
  ScatterAdd,
  Cat,
  // Composites a backend may override.
  Softmax,
  LogSoftmax,
  Conv2d,
  Conv2dBackwardInput,
  Conv2dBackwardWeight,
  MaxPool2d,
  MaxPool2dBackward,
  AvgPool2d,
  AvgPool2dBackward,
  LayerNorm,
  CrossEntropy,
  ScaledDotProductAttention,
  ScaledDotProductAttentionBackward,
  // Linear algebra through LAPACK-style factorizations.
  LinalgCholeskyEx,
  LinalgLuFactorEx,
  LinalgSolveTriangular,
  LinalgQr,
  LinalgEigh,
  LinalgSvd,
  // Views: the core's own aliasing.
  View,
  Permute,
  Transpose,
  Expand,
  Squeeze,
  Unsqueeze,
  Slice,
  Select,
  AsStrided,
  Count
};

inline constexpr int kNumOps = static_cast<int>(OpId::Count);

}  // namespace ember::dispatch
