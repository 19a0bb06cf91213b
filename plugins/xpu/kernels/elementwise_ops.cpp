#include "elementwise_ops.h"

namespace ember::xpu {

namespace {

// Integer arithmetic goes through U so that overflow wraps (signed overflow
// is undefined in OpenCL C as in C).
constexpr ElementwiseOp kUnary[] = {
    {"neg", "-x", "(T)(-(U)x)", nullptr},
    {"abs", "fabs(x)", "(T)(x < (T)0 ? -(U)x : (U)x)", nullptr},
    {"sign", "(isnan(x) ? x : (T)((x > (T)0) - (x < (T)0)))", "(T)((x > (T)0) - (x < (T)0))", nullptr},
    {"exp", "exp(x)", nullptr, nullptr},
    {"log", "log(x)", nullptr, nullptr},
    {"log1p", "log1p(x)", nullptr, nullptr},
    {"expm1", "expm1(x)", nullptr, nullptr},
    {"sqrt", "sqrt(x)", nullptr, nullptr},
    {"rsqrt", "rsqrt(x)", nullptr, nullptr},
    {"sin", "sin(x)", nullptr, nullptr},
    {"cos", "cos(x)", nullptr, nullptr},
    {"tan", "tan(x)", nullptr, nullptr},
    {"tanh", "tanh(x)", nullptr, nullptr},
    {"sigmoid", "(T)1 / ((T)1 + exp(-x))", nullptr, nullptr},
    {"erf", "erf(x)", nullptr, nullptr},
    {"erfc", "erfc(x)", nullptr, nullptr},
    {"erfinv", "erfinv_float(x)", nullptr, nullptr},
    {"asin", "asin(x)", nullptr, nullptr},
    {"acos", "acos(x)", nullptr, nullptr},
    {"atan", "atan(x)", nullptr, nullptr},
    {"lgamma", "lgamma(x)", nullptr, nullptr},
    {"digamma", "digamma_float(x)", nullptr, nullptr},
    {"reciprocal", "(T)1 / x", nullptr, nullptr},
    {"floor", "floor(x)", nullptr, nullptr},
    {"ceil", "ceil(x)", nullptr, nullptr},
    {"trunc", "trunc(x)", nullptr, nullptr},
    {"round", "rint(x)", nullptr, nullptr},
    {"bitwise_not", nullptr, "(T)(~x)", "(T)(x == (T)0)"},
};

constexpr ElementwiseOp kUnaryBool[] = {
    {"logical_not", "x == (T)0", "x == (T)0", "x == (T)0"},
};

// The helpers (floor_divide_*, remainder_*, pow_int, erfinv_float,
// digamma_float) live in
// cl/elementwise.cl; the integer ones report errors through `error`.
constexpr ElementwiseOp kBinary[] = {
    {"add", "x + y", "(T)((U)x + (U)y)", "(T)(x || y)"},
    {"sub", "x - y", "(T)((U)x - (U)y)", nullptr},
    {"mul", "x * y", "(T)((U)x * (U)y)", "(T)(x && y)"},
    {"div", "x / y", nullptr, nullptr},
    {"floor_divide", "floor_divide_float(x, y)", "floor_divide_int(x, y, error)", nullptr},
    {"remainder", "remainder_float(x, y)", "remainder_int(x, y, error)", nullptr},
    {"pow", "pow(x, y)", "pow_int(x, y, error)", nullptr},
    {"maximum", "((isnan(x) || isnan(y)) ? x + y : fmax(x, y))", "max(x, y)", "max(x, y)"},
    {"minimum", "((isnan(x) || isnan(y)) ? x + y : fmin(x, y))", "min(x, y)", "min(x, y)"},
    {"atan2", "atan2(x, y)", nullptr, nullptr},
    {"bitwise_and", nullptr, "(T)(x & y)", "(T)(x & y)"},
    {"bitwise_or", nullptr, "(T)(x | y)", "(T)(x | y)"},
    {"bitwise_xor", nullptr, "(T)(x ^ y)", "(T)(x ^ y)"},
};

constexpr ElementwiseOp same_for_all(const char* name, const char* expression) {
  return {name, expression, expression, expression};
}

constexpr ElementwiseOp kBinaryBool[] = {
    same_for_all("logical_and", "(x != (T)0) && (y != (T)0)"),
    same_for_all("logical_or", "(x != (T)0) || (y != (T)0)"),
    same_for_all("logical_xor", "(x != (T)0) != (y != (T)0)"),
    same_for_all("eq", "x == y"),
    same_for_all("ne", "x != y"),
    same_for_all("lt", "x < y"),
    same_for_all("le", "x <= y"),
    same_for_all("gt", "x > y"),
    same_for_all("ge", "x >= y"),
};

}  // namespace

std::span<const ElementwiseOp> unary_ops() { return kUnary; }
std::span<const ElementwiseOp> unary_bool_ops() { return kUnaryBool; }
std::span<const ElementwiseOp> binary_ops() { return kBinary; }
std::span<const ElementwiseOp> binary_bool_ops() { return kBinaryBool; }

const char* expression_for(const ElementwiseOp& op, const DTypeInfo& dtype) {
  if (dtype.is_floating) return op.floating;
  return dtype.is_bool ? op.boolean : op.integer;
}

int op_code(std::span<const ElementwiseOp> table, const ElementwiseOp& op) {
  return static_cast<int>(&op - table.data());
}

}  // namespace ember::xpu
