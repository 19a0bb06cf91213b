#include "cpp_dialect.h"

#include <ember/sdk/status.hpp>

namespace ember::cpu_codegen {
namespace {

bool computes_in_float(ember_dtype dtype) { return is_reduced_float(dtype) || dtype == EMBER_DTYPE_FLOAT32; }

std::string call(const std::string& function, const std::vector<std::string>& args) {
  std::string text = function + "(";
  for (size_t a = 0; a < args.size(); ++a) text += (a > 0 ? ", " : "") + args[a];
  return text + ")";
}

// The SDK's storage class of a reduced float: "float16", "bfloat16".
std::string reduced_float_class(ember_dtype dtype) { return dtype == EMBER_DTYPE_FLOAT16 ? "float16" : "bfloat16"; }

std::string rules(Requirements& req, const std::string& text) {
  req.scalar_rules = true;
  return "ember::sdk::" + text;
}

}  // namespace

const char* CppDialect::compute_type(ember_dtype dtype) const {
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

const char* CppDialect::storage_type(ember_dtype dtype) const {
  if (dtype == EMBER_DTYPE_BOOL) return "uint8_t";
  if (is_reduced_float(dtype)) return "uint16_t";
  return compute_type(dtype);
}

std::string CppDialect::cast(const std::string& type, const std::string& value) const {
  return "static_cast<" + type + ">(" + value + ")";
}

std::string CppDialect::math_call(const char* name, ember_dtype dtype, const std::vector<std::string>& args,
                                  bool instruction, Requirements& req) const {
  const std::string suffix = computes_in_float(dtype) ? "f" : "";
  // GCC's builtins compile to an instruction; the library functions are
  // declared by the source (and vectorised through libmvec where it has them).
  if (instruction) return call("__builtin_" + std::string(name) + suffix, args);
  const std::string function = name + suffix;
  req.math_functions.insert(function);
  return call(function, args);
}

std::string CppDialect::wrap_call(const char* name, const std::vector<std::string>& args, Requirements& req) const {
  return rules(req, call(name, args));
}

std::string CppDialect::convert(ember_dtype to, const std::string& value, Requirements& req) const {
  const std::string type = is_reduced_float(to) ? "ember::sdk::" + reduced_float_class(to) : compute_type(to);
  const std::string converted = rules(req, "convert<" + type + ">(" + value + ")");
  return is_reduced_float(to) ? "static_cast<float>(" + converted + ")" : converted;
}

std::string CppDialect::nan_literal(ember_dtype dtype) const {
  return computes_in_float(dtype) ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
}

std::string CppDialect::infinity_literal(ember_dtype dtype, bool negative) const {
  const std::string inf = computes_in_float(dtype) ? "__builtin_inff()" : "__builtin_inf()";
  return negative ? "(-" + inf + ")" : inf;
}

std::string CppDialect::load(ember_dtype dtype, const std::string& buffer, const std::string& index,
                             Requirements& req) const {
  const std::string element = buffer + "[" + index + "]";
  if (dtype == EMBER_DTYPE_BOOL) return "(" + element + " != 0)";
  if (is_reduced_float(dtype)) {
    return "static_cast<float>(" + rules(req, reduced_float_class(dtype) + "::from_bits(" + element + "))");
  }
  return element;
}

std::string CppDialect::store(ember_dtype dtype, const std::string& buffer, const std::string& index,
                              const std::string& value, Requirements& req) const {
  std::string stored = value;
  if (dtype == EMBER_DTYPE_BOOL) stored = "static_cast<uint8_t>(" + value + ")";
  if (is_reduced_float(dtype)) stored = rules(req, reduced_float_class(dtype) + "(" + value + ").bits");
  return buffer + "[" + index + "] = " + stored + ";";
}

std::string CppDialect::round_to_dtype(ember_dtype dtype, const std::string& value, Requirements& req) const {
  return "static_cast<float>(" + rules(req, reduced_float_class(dtype) + "(" + value + "))");
}

}  // namespace ember::cpu_codegen
