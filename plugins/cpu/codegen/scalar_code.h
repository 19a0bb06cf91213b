// The C++ of one element: the types a dtype is stored and computed in, and
// the expression of every EKIR op with the catalogue's semantics.
#ifndef EMBER_PLUGINS_CPU_CODEGEN_SCALAR_CODE_H_
#define EMBER_PLUGINS_CPU_CODEGEN_SCALAR_CODE_H_

#include <set>
#include <string>
#include <vector>

#include "ekir.h"

namespace ember::cpu_codegen {

// What the generated source needs besides its own code.
struct Requirements {
  // The SDK's scalar rules (wrap-around, floor_divide, conversions,
  // float16/bfloat16), included from the embedded SDK headers.
  bool scalar_rules = false;
  // C math functions called ("sinf", "pow"), each declared by the source.
  std::set<std::string> math_functions;
};

// The C math functions kernels call, by their double names ("sin"; the
// float one is "sinf"), with their number of arguments.
struct MathFunction {
  const char* name;
  int arity;
};
inline constexpr MathFunction kMathFunctions[] = {{"exp", 1}, {"log", 1}, {"log1p", 1}, {"expm1", 1}, {"sin", 1},
                                                  {"cos", 1}, {"tan", 1}, {"tanh", 1},  {"erf", 1},   {"pow", 2}};

// Fault bits a kernel returns (Note [Kernel faults] in cpp_source.cpp).
inline constexpr unsigned kFaultIntegerDivisionByZero = 1u;
inline constexpr unsigned kFaultNegativeIntegerPower = 2u;

// The C++ type values of `dtype` are computed in: float for float16 and
// bfloat16, the dtype's own type otherwise.
const char* compute_type(ember_dtype dtype);
// The C++ type of the buffer elements: uint8_t for bool, uint16_t (the
// bits) for float16 and bfloat16.
const char* storage_type(ember_dtype dtype);

// `element` (an lvalue of storage type) as a compute value.
std::string load_expression(ember_dtype dtype, const std::string& element, Requirements& req);
// The storage value of compute value `value`.
std::string store_expression(ember_dtype dtype, const std::string& value, Requirements& req);

// The expression of an instruction other than load, store and reduce over
// `args` (compute values of the operands' dtypes). `fault` names the
// kernel's fault bits, which integer division and pow set.
std::string op_expression(const Instruction& ins, ember_dtype operand_dtype, const std::vector<std::string>& args,
                          const std::string& fault, Requirements& req);

// A reduce's accumulator: its identity (kernel-ir.md: the empty reduction)
// and the combination of accumulator `acc` with `value`.
std::string reduce_identity(ReduceKind kind, ember_dtype dtype);
std::string reduce_combine(ReduceKind kind, ember_dtype dtype, const std::string& acc, const std::string& value,
                           Requirements& req);

// A compute value of a float16 or bfloat16 result rounded to its dtype.
std::string round_to_dtype(ember_dtype dtype, const std::string& value, Requirements& req);

}  // namespace ember::cpu_codegen

#endif  // EMBER_PLUGINS_CPU_CODEGEN_SCALAR_CODE_H_
