#include "scalar_code.h"

#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/storage_types.hpp>

#include <cinttypes>
#include <cmath>
#include <cstdio>

namespace ember::cpu_codegen {
namespace {

bool computes_in_float(ember_dtype dtype) { return is_reduced_float(dtype) || dtype == EMBER_DTYPE_FLOAT32; }

// A C math function of the compute type: "sinf" for float, "sin" for double.
std::string math_call(const char* name, ember_dtype dtype, const std::vector<std::string>& args, Requirements& req) {
  const std::string function = std::string(name) + (computes_in_float(dtype) ? "f" : "");
  req.math_functions.insert(function);
  std::string call = function + "(";
  for (size_t a = 0; a < args.size(); ++a) call += (a > 0 ? ", " : "") + args[a];
  return call + ")";
}

// A GCC builtin that compiles to an instruction (sqrt, floor, fabs).
std::string builtin_call(const char* name, ember_dtype dtype, const std::string& arg) {
  return std::string("__builtin_") + name + (computes_in_float(dtype) ? "f" : "") + "(" + arg + ")";
}

std::string rules(Requirements& req, const std::string& call) {
  req.scalar_rules = true;
  return "ember::sdk::" + call;
}

// The SDK's storage class of a reduced float: "float16", "bfloat16".
std::string reduced_float_class(ember_dtype dtype) { return dtype == EMBER_DTYPE_FLOAT16 ? "float16" : "bfloat16"; }

// The type sdk::convert<> converts to.
std::string conversion_type(ember_dtype dtype) {
  if (is_reduced_float(dtype)) return "ember::sdk::" + reduced_float_class(dtype);
  return compute_type(dtype);
}

std::string floating_literal(double value, ember_dtype dtype) {
  const bool single = computes_in_float(dtype);
  if (std::isnan(value)) return single ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (std::isinf(value)) {
    const std::string inf = single ? "__builtin_inff()" : "__builtin_inf()";
    return value < 0 ? "(-" + inf + ")" : inf;
  }
  double exact = value;
  if (dtype == EMBER_DTYPE_FLOAT32) exact = static_cast<float>(value);
  if (dtype == EMBER_DTYPE_FLOAT16) exact = static_cast<float>(sdk::float16(static_cast<float>(value)));
  if (dtype == EMBER_DTYPE_BFLOAT16) exact = static_cast<float>(sdk::bfloat16(static_cast<float>(value)));
  char text[64];
  std::snprintf(text, sizeof text, "%a%s", exact, single ? "f" : "");
  return text;
}

std::string integer_literal(int64_t value, ember_dtype dtype) {
  if (dtype == EMBER_DTYPE_BOOL) return value != 0 ? "true" : "false";
  // -2^63 has no literal: it is written as an expression.
  const std::string digits = value == INT64_MIN ? "(-9223372036854775807LL - 1)" : std::to_string(value) + "LL";
  return std::string("static_cast<") + compute_type(dtype) + ">(" + digits + ")";
}

std::string zero_of(ember_dtype dtype) { return std::string(compute_type(dtype)) + "(0)"; }

std::string truth_of(ember_dtype dtype, const std::string& value) {
  return dtype == EMBER_DTYPE_BOOL ? value : "(" + value + " != " + zero_of(dtype) + ")";
}

std::string cast_expression(ember_dtype to, const std::string& value, Requirements& req) {
  const std::string converted = rules(req, "convert<" + conversion_type(to) + ">(" + value + ")");
  return is_reduced_float(to) ? "static_cast<float>(" + converted + ")" : converted;
}

std::string unary_expression(Op op, ember_dtype dtype, const std::string& a, Requirements& req) {
  const std::string type = compute_type(dtype);
  const std::string one = type + "(1)";
  switch (op) {
    case Op::neg:
      return is_integer(dtype) ? rules(req, "wrap_neg(" + a + ")") : "(-" + a + ")";
    case Op::abs:
      if (is_floating(dtype)) return builtin_call("fabs", dtype, a);
      if (!is_signed_integer(dtype)) return a;
      return "(" + a + " < " + zero_of(dtype) + " ? " + rules(req, "wrap_neg(" + a + ")") + " : " + a + ")";
    case Op::sign:
      return "ek_sign(" + a + ")";
    case Op::exp:
      return math_call("exp", dtype, {a}, req);
    case Op::log:
      return math_call("log", dtype, {a}, req);
    case Op::log1p:
      return math_call("log1p", dtype, {a}, req);
    case Op::expm1:
      return math_call("expm1", dtype, {a}, req);
    case Op::sin:
      return math_call("sin", dtype, {a}, req);
    case Op::cos:
      return math_call("cos", dtype, {a}, req);
    case Op::tan:
      return math_call("tan", dtype, {a}, req);
    case Op::tanh:
      return math_call("tanh", dtype, {a}, req);
    case Op::erf:
      return math_call("erf", dtype, {a}, req);
    case Op::sqrt:
      return builtin_call("sqrt", dtype, a);
    case Op::rsqrt:
      return "(" + one + " / " + builtin_call("sqrt", dtype, a) + ")";
    case Op::sigmoid:
      return "(" + one + " / (" + one + " + " + math_call("exp", dtype, {"(-" + a + ")"}, req) + "))";
    case Op::reciprocal:
      return "(" + one + " / " + a + ")";
    case Op::floor:
      return builtin_call("floor", dtype, a);
    case Op::ceil:
      return builtin_call("ceil", dtype, a);
    case Op::trunc:
      return builtin_call("trunc", dtype, a);
    case Op::round:  // half to even in the default rounding mode
      return builtin_call("nearbyint", dtype, a);
    case Op::bitwise_not:
      return dtype == EMBER_DTYPE_BOOL ? "(!" + a + ")" : "static_cast<" + type + ">(~" + a + ")";
    default:
      break;
  }
  sdk::fail(EMBER_STATUS_INTERNAL, std::string("no unary expression for ") + op_name(op));
}

std::string binary_expression(Op op, ember_dtype dtype, const std::string& a, const std::string& b,
                              const std::string& fault, Requirements& req) {
  const bool boolean = dtype == EMBER_DTYPE_BOOL;
  const bool integer = is_integer(dtype);
  const std::string type = compute_type(dtype);
  auto infix = [&](const char* symbol) { return "(" + a + " " + symbol + " " + b + ")"; };
  auto bitwise = [&](const char* symbol) {
    return boolean ? infix(symbol) : "static_cast<" + type + ">(" + a + " " + symbol + " " + b + ")";
  };
  switch (op) {
    case Op::add:
      return boolean ? infix("||") : integer ? rules(req, "wrap_add(" + a + ", " + b + ")") : infix("+");
    case Op::sub:
      return integer ? rules(req, "wrap_sub(" + a + ", " + b + ")") : infix("-");
    case Op::mul:
      return boolean ? infix("&&") : integer ? rules(req, "wrap_mul(" + a + ", " + b + ")") : infix("*");
    case Op::div:
      return infix("/");
    case Op::floor_divide:
      req.scalar_rules = true;
      return "ek_floor_divide(" + a + ", " + b + ", " + fault + ")";
    case Op::remainder:
      req.scalar_rules = true;
      return "ek_remainder(" + a + ", " + b + ", " + fault + ")";
    case Op::pow:
      if (!integer) return math_call("pow", dtype, {a, b}, req);
      req.scalar_rules = true;
      return "ek_integer_pow(" + a + ", " + b + ", " + fault + ")";
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
      return "(" + truth_of(dtype, a) + " && " + truth_of(dtype, b) + ")";
    case Op::logical_or:
      return "(" + truth_of(dtype, a) + " || " + truth_of(dtype, b) + ")";
    case Op::logical_xor:
      return "(" + truth_of(dtype, a) + " != " + truth_of(dtype, b) + ")";
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

const char* compute_type(ember_dtype dtype) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL:
      return "bool";
    case EMBER_DTYPE_UINT8:
      return "uint8_t";
    case EMBER_DTYPE_INT8:
      return "int8_t";
    case EMBER_DTYPE_INT16:
      return "int16_t";
    case EMBER_DTYPE_INT32:
      return "int32_t";
    case EMBER_DTYPE_INT64:
      return "int64_t";
    case EMBER_DTYPE_FLOAT16:
    case EMBER_DTYPE_BFLOAT16:
    case EMBER_DTYPE_FLOAT32:
      return "float";
    case EMBER_DTYPE_FLOAT64:
      return "double";
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "unknown dtype");
}

const char* storage_type(ember_dtype dtype) {
  if (dtype == EMBER_DTYPE_BOOL) return "uint8_t";
  if (is_reduced_float(dtype)) return "uint16_t";
  return compute_type(dtype);
}

std::string load_expression(ember_dtype dtype, const std::string& element, Requirements& req) {
  if (dtype == EMBER_DTYPE_BOOL) return "(" + element + " != 0)";
  if (is_reduced_float(dtype)) {
    return "static_cast<float>(" + rules(req, reduced_float_class(dtype) + "::from_bits(" + element + "))");
  }
  return element;
}

std::string store_expression(ember_dtype dtype, const std::string& value, Requirements& req) {
  if (dtype == EMBER_DTYPE_BOOL) return "static_cast<uint8_t>(" + value + ")";
  if (is_reduced_float(dtype)) return rules(req, reduced_float_class(dtype) + "(" + value + ").bits");
  return value;
}

std::string op_expression(const Instruction& ins, ember_dtype operand_dtype, const std::vector<std::string>& args,
                          const std::string& fault, Requirements& req) {
  switch (ins.op) {
    case Op::constant:
      return is_floating(ins.dtype) ? floating_literal(ins.constant.number, ins.dtype)
                                    : integer_literal(ins.constant.integer, ins.dtype);
    case Op::cast:
      return cast_expression(ins.dtype, args[0], req);
    case Op::where:
      return "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
    case Op::logical_not:
      return "(!" + truth_of(operand_dtype, args[0]) + ")";
    case Op::load:
    case Op::store:
    case Op::reduce:
      sdk::fail(EMBER_STATUS_INTERNAL, std::string("op_expression of ") + op_name(ins.op));
    default:
      break;
  }
  std::string value = args.size() == 1 ? unary_expression(ins.op, operand_dtype, args[0], req)
                                       : binary_expression(ins.op, operand_dtype, args[0], args[1], fault, req);
  return is_reduced_float(ins.dtype) ? round_to_dtype(ins.dtype, value, req) : value;
}

std::string reduce_identity(ReduceKind kind, ember_dtype dtype) {
  const bool boolean = dtype == EMBER_DTYPE_BOOL;
  switch (kind) {
    case ReduceKind::sum:
      return boolean ? "false" : zero_of(dtype);
    case ReduceKind::prod:
      return boolean ? "true" : std::string(compute_type(dtype)) + "(1)";
    case ReduceKind::max:
    case ReduceKind::min: {
      const bool max = kind == ReduceKind::max;
      if (boolean) return max ? "false" : "true";
      if (is_floating(dtype)) return floating_literal(max ? -INFINITY : INFINITY, dtype);
      if (dtype == EMBER_DTYPE_UINT8) return max ? "uint8_t(0)" : "uint8_t(255)";
      const int bits = 8 * static_cast<int>(sdk::element_size(dtype));
      const int64_t highest = static_cast<int64_t>((~uint64_t{0}) >> (65 - bits));
      return integer_literal(max ? -highest - 1 : highest, dtype);
    }
  }
  return "";
}

std::string reduce_combine(ReduceKind kind, ember_dtype dtype, const std::string& acc, const std::string& value,
                           Requirements& req) {
  const bool boolean = dtype == EMBER_DTYPE_BOOL;
  const bool integer = is_integer(dtype);
  switch (kind) {
    case ReduceKind::sum:
      if (boolean) return "(" + acc + " || " + value + ")";
      return integer ? rules(req, "wrap_add(" + acc + ", " + value + ")") : "(" + acc + " + " + value + ")";
    case ReduceKind::prod:
      if (boolean) return "(" + acc + " && " + value + ")";
      return integer ? rules(req, "wrap_mul(" + acc + ", " + value + ")") : "(" + acc + " * " + value + ")";
    case ReduceKind::max:
      return boolean ? "(" + acc + " || " + value + ")" : "ek_reduce_max(" + acc + ", " + value + ")";
    case ReduceKind::min:
      return boolean ? "(" + acc + " && " + value + ")" : "ek_reduce_min(" + acc + ", " + value + ")";
  }
  return "";
}

std::string round_to_dtype(ember_dtype dtype, const std::string& value, Requirements& req) {
  return "static_cast<float>(" + rules(req, reduced_float_class(dtype) + "(" + value + "))");
}

}  // namespace ember::cpu_codegen
