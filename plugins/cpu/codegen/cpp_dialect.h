// C++ for the system compiler (Note [C-family dialects] in
// <ember/kernel_ir/scalar_code.h>): stdint types, GCC builtins for the
// math that is an instruction, the SDK's scalar rules for the rest.
#ifndef EMBER_PLUGINS_CPU_CODEGEN_CPP_DIALECT_H_
#define EMBER_PLUGINS_CPU_CODEGEN_CPP_DIALECT_H_

#include <ember/kernel_ir/scalar_code.h>

namespace ember::cpu_codegen {

using kernel_ir::all_op_names;
using kernel_ir::Buffer;
using kernel_ir::BufferRole;
using kernel_ir::describe_instruction;
using kernel_ir::Instruction;
using kernel_ir::is_floating;
using kernel_ir::is_integer;
using kernel_ir::is_reduced_float;
using kernel_ir::Kernel;
using kernel_ir::kFaultIntegerDivisionByZero;
using kernel_ir::kFaultNegativeIntegerPower;
using kernel_ir::Loop;
using kernel_ir::Op;
using kernel_ir::op_name;
using kernel_ir::parse_ekir;
using kernel_ir::ReduceKind;
using kernel_ir::Requirements;
using kernel_ir::Term;
using kernel_ir::ValueRef;

// The C math functions kernels call, by their double names ("sin"; the
// float one is "sinf"), with their number of arguments.
struct MathFunction {
  const char* name;
  int arity;
};
inline constexpr MathFunction kMathFunctions[] = {
    {"exp", 1}, {"log", 1},  {"log1p", 1}, {"expm1", 1}, {"sin", 1},  {"cos", 1},  {"tan", 1},   {"tanh", 1},
    {"erf", 1}, {"erfc", 1}, {"asin", 1},  {"acos", 1},  {"atan", 1}, {"pow", 2},  {"atan2", 2}};

class CppDialect final : public kernel_ir::Dialect {
 public:
  const char* compute_type(ember_dtype dtype) const override;
  const char* storage_type(ember_dtype dtype) const override;
  std::string cast(const std::string& type, const std::string& value) const override;
  std::string math_call(const char* name, ember_dtype dtype, const std::vector<std::string>& args, bool instruction,
                        Requirements& req) const override;
  std::string wrap_call(const char* name, const std::vector<std::string>& args, Requirements& req) const override;
  std::string convert(ember_dtype to, const std::string& value, Requirements& req) const override;
  std::string nan_literal(ember_dtype dtype) const override;
  std::string infinity_literal(ember_dtype dtype, bool negative) const override;
  std::string load(ember_dtype dtype, const std::string& buffer, const std::string& index,
                   Requirements& req) const override;
  std::string store(ember_dtype dtype, const std::string& buffer, const std::string& index, const std::string& value,
                    Requirements& req) const override;
  std::string round_to_dtype(ember_dtype dtype, const std::string& value, Requirements& req) const override;
};

}  // namespace ember::cpu_codegen

#endif  // EMBER_PLUGINS_CPU_CODEGEN_CPP_DIALECT_H_
