#include <ember/kernel_ir/scalar_code.h>

#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>
#include <ember/sdk/storage_types.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace ember::kernel_ir {
namespace {

bool computes_in_float(ember_dtype dtype) { return is_reduced_float(dtype) || dtype == EMBER_DTYPE_FLOAT32; }

std::string floating_literal(const Dialect& d, double value, ember_dtype dtype) {
  if (std::isnan(value)) return d.nan_literal(dtype);
  if (std::isinf(value)) return d.infinity_literal(dtype, value < 0);
  double exact = value;
  if (dtype == EMBER_DTYPE_FLOAT32) exact = static_cast<float>(value);
  if (dtype == EMBER_DTYPE_FLOAT16) exact = static_cast<float>(sdk::float16(static_cast<float>(value)));
  if (dtype == EMBER_DTYPE_BFLOAT16) exact = static_cast<float>(sdk::bfloat16(static_cast<float>(value)));
  char text[64];
  std::snprintf(text, sizeof text, "%a%s", exact, computes_in_float(dtype) ? "f" : "");
  return text;
}

std::string integer_literal(const Dialect& d, int64_t value, ember_dtype dtype) {
  if (dtype == EMBER_DTYPE_BOOL) return value != 0 ? "true" : "false";
  // -2^63 has no literal: it is written as an expression.
  const std::string digits = value == INT64_MIN ? "(-9223372036854775807LL - 1)" : std::to_string(value) + "LL";
  return d.cast(d.compute_type(dtype), digits);
}

std::string zero_of(const Dialect& d, ember_dtype dtype) { return d.cast(d.compute_type(dtype), "0"); }

std::string truth_of(const Dialect& d, ember_dtype dtype, const std::string& value) {
  return dtype == EMBER_DTYPE_BOOL ? value : "(" + value + " != " + zero_of(d, dtype) + ")";
}

std::string unary_expression(const Dialect& d, Op op, ember_dtype dtype, const std::string& a, Requirements& req) {
  const std::string type = d.compute_type(dtype);
  const std::string one = d.cast(type, "1");
  auto math = [&](const char* name, const std::string& arg) { return d.math_call(name, dtype, {arg}, false, req); };
  auto instruction = [&](const char* name) { return d.math_call(name, dtype, {a}, true, req); };
  switch (op) {
    case Op::neg:
      return is_integer(dtype) ? d.wrap_call("wrap_neg", {a}, req) : "(-" + a + ")";
    case Op::abs:
      if (is_floating(dtype)) return instruction("fabs");
      if (!is_signed_integer(dtype)) return a;
      return "(" + a + " < " + zero_of(d, dtype) + " ? " + d.wrap_call("wrap_neg", {a}, req) + " : " + a + ")";
    case Op::sign:
      return "ek_sign(" + a + ")";
    case Op::exp:
      return math("exp", a);
    case Op::log:
      return math("log", a);
    case Op::log1p:
      return math("log1p", a);
    case Op::expm1:
      return math("expm1", a);
    case Op::sin:
      return math("sin", a);
    case Op::cos:
      return math("cos", a);
    case Op::tan:
      return math("tan", a);
    case Op::tanh:
      return math("tanh", a);
    case Op::erf:
      return math("erf", a);
    case Op::erfc:
      return math("erfc", a);
    case Op::asin:
      return math("asin", a);
    case Op::acos:
      return math("acos", a);
    case Op::atan:
      return math("atan", a);
    case Op::sqrt:
      return instruction("sqrt");
    case Op::rsqrt:
      return "(" + one + " / " + instruction("sqrt") + ")";
    case Op::sigmoid:
      return "(" + one + " / (" + one + " + " + math("exp", "(-" + a + ")") + "))";
    case Op::reciprocal:
      return "(" + one + " / " + a + ")";
    case Op::floor:
      return instruction("floor");
    case Op::ceil:
      return instruction("ceil");
    case Op::trunc:
      return instruction("trunc");
    case Op::round:  // half to even in the default rounding mode
      return instruction("nearbyint");
    case Op::bitwise_not:
      return dtype == EMBER_DTYPE_BOOL ? "(!" + a + ")" : d.cast(type, "~" + a);
    default:
      break;
  }
  sdk::fail(EMBER_STATUS_INTERNAL, std::string("no unary expression for ") + op_name(op));
}

std::string binary_expression(const Dialect& d, Op op, ember_dtype dtype, const std::string& a, const std::string& b,
                              const std::string& fault, Requirements& req) {
  const bool boolean = dtype == EMBER_DTYPE_BOOL;
  const bool integer = is_integer(dtype);
  const std::string type = d.compute_type(dtype);
  auto infix = [&](const char* symbol) { return "(" + a + " " + symbol + " " + b + ")"; };
  auto bitwise = [&](const char* symbol) { return boolean ? infix(symbol) : d.cast(type, a + " " + symbol + " " + b); };
  auto wrap = [&](const char* name) { return d.wrap_call(name, {a, b}, req); };
  auto faulting = [&](const char* helper) {
    req.scalar_rules = true;
    return std::string(helper) + "(" + a + ", " + b + ", " + fault + ")";
  };
  switch (op) {
    case Op::add:
      return boolean ? infix("||") : integer ? wrap("wrap_add") : infix("+");
    case Op::sub:
      return integer ? wrap("wrap_sub") : infix("-");
    case Op::mul:
      return boolean ? infix("&&") : integer ? wrap("wrap_mul") : infix("*");
    case Op::div:
      return infix("/");
    case Op::floor_divide:
      return faulting("ek_floor_divide");
    case Op::remainder:
      return faulting("ek_remainder");
    case Op::pow:
      return integer ? faulting("ek_integer_pow") : d.math_call("pow", dtype, {a, b}, false, req);
    case Op::atan2:
      return d.math_call("atan2", dtype, {a, b}, false, req);
    case Op::maximum:
      return boolean ? infix("||") : "ek_maximum(" + a + ", " + b + ")";
    case Op::minimum:
      return boolean ? infix("&&") : "ek_minimum(" + a + ", " + b + ")";
    case Op::bitwise_and:
      return bitwise("&");
    case Op::bitwise_or:
      return bitwise("|");
    case Op::bitwise_xor:
      return boolean ? infix("!=") : bitwise("^");
    case Op::logical_and:
      return "(" + truth_of(d, dtype, a) + " && " + truth_of(d, dtype, b) + ")";
    case Op::logical_or:
      return "(" + truth_of(d, dtype, a) + " || " + truth_of(d, dtype, b) + ")";
    case Op::logical_xor:
      return "(" + truth_of(d, dtype, a) + " != " + truth_of(d, dtype, b) + ")";
    case Op::eq:
      return infix("==");
    case Op::ne:
      return infix("!=");
    case Op::lt:
      return infix("<");
    case Op::le:
      return infix("<=");
    case Op::gt:
      return infix(">");
    case Op::ge:
      return infix(">=");
    default:
      break;
  }
  sdk::fail(EMBER_STATUS_INTERNAL, std::string("no binary expression for ") + op_name(op));
}

}  // namespace

std::string op_expression(const Dialect& d, const Instruction& ins, ember_dtype operand_dtype,
                          const std::vector<std::string>& args, const std::string& fault, Requirements& req) {
  switch (ins.op) {
    case Op::constant:
      if (ins.constant.param) return d.cast(d.compute_type(ins.dtype), "p" + std::to_string(*ins.constant.param));
      return is_floating(ins.dtype) ? floating_literal(d, ins.constant.number, ins.dtype)
                                    : integer_literal(d, ins.constant.integer, ins.dtype);
    case Op::cast:
      return d.convert(ins.dtype, args[0], req);
    case Op::where:
      return "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
    case Op::logical_not:
      return "(!" + truth_of(d, operand_dtype, args[0]) + ")";
    case Op::load:
    case Op::store:
    case Op::reduce:
      sdk::fail(EMBER_STATUS_INTERNAL, std::string("op_expression of ") + op_name(ins.op));
    default:
      break;
  }
  std::string value = args.size() == 1 ? unary_expression(d, ins.op, operand_dtype, args[0], req)
                                       : binary_expression(d, ins.op, operand_dtype, args[0], args[1], fault, req);
  return is_reduced_float(ins.dtype) ? d.round_to_dtype(ins.dtype, value, req) : value;
}

std::string reduce_identity(const Dialect& d, ReduceKind kind, ember_dtype dtype) {
  const bool boolean = dtype == EMBER_DTYPE_BOOL;
  switch (kind) {
    case ReduceKind::sum:
      return boolean ? "false" : zero_of(d, dtype);
    case ReduceKind::prod:
      return boolean ? "true" : d.cast(d.compute_type(dtype), "1");
    case ReduceKind::max:
    case ReduceKind::min: {
      const bool max = kind == ReduceKind::max;
      if (boolean) return max ? "false" : "true";
      if (is_floating(dtype)) return d.infinity_literal(dtype, max);
      if (dtype == EMBER_DTYPE_UINT8) return d.cast(d.compute_type(dtype), max ? "0" : "255");
      const int bits = 8 * static_cast<int>(sdk::element_size(dtype));
      const int64_t highest = static_cast<int64_t>((~uint64_t{0}) >> (65 - bits));
      return integer_literal(d, max ? -highest - 1 : highest, dtype);
    }
  }
  return "";
}

std::string reduce_combine(const Dialect& d, ReduceKind kind, ember_dtype dtype, const std::string& acc,
                           const std::string& value, Requirements& req) {
  const bool boolean = dtype == EMBER_DTYPE_BOOL;
  const bool integer = is_integer(dtype);
  switch (kind) {
    case ReduceKind::sum:
      if (boolean) return "(" + acc + " || " + value + ")";
      return integer ? d.wrap_call("wrap_add", {acc, value}, req) : "(" + acc + " + " + value + ")";
    case ReduceKind::prod:
      if (boolean) return "(" + acc + " && " + value + ")";
      return integer ? d.wrap_call("wrap_mul", {acc, value}, req) : "(" + acc + " * " + value + ")";
    case ReduceKind::max:
      return boolean ? "(" + acc + " || " + value + ")" : "ek_reduce_max(" + acc + ", " + value + ")";
    case ReduceKind::min:
      return boolean ? "(" + acc + " && " + value + ")" : "ek_reduce_min(" + acc + ", " + value + ")";
  }
  return "";
}

}  // namespace ember::kernel_ir
