// The code of one element in a C-family kernel language (C++, OpenCL C,
// CUDA C++): the expression of every EKIR op with the catalogue's
// semantics, written once over the few places the languages differ, which
// a generator supplies as its Dialect.
#ifndef EMBER_KERNEL_IR_SCALAR_CODE_H_
#define EMBER_KERNEL_IR_SCALAR_CODE_H_

#include <set>
#include <string>
#include <vector>

#include <ember/kernel_ir/ekir.h>

namespace ember::kernel_ir {

// What the generated source needs besides its own code.
struct Requirements {
  // Helpers with the SDK's scalar rules (wrap-around, floor_divide,
  // conversions, float16/bfloat16) or the generator's own spelling of them.
  bool scalar_rules = false;
  // Math functions called by their dialect's names ("sinf", "pow").
  std::set<std::string> math_functions;
};

// Fault bits a kernel reports (kernel-ir.md, "Reading EKIR"): an element
// that hits one yields 0, the kernel goes on, and its launch fails.
inline constexpr unsigned kFaultIntegerDivisionByZero = 1u;
inline constexpr unsigned kFaultNegativeIntegerPower = 2u;

// Note [C-family dialects]: the expressions below are the same text in
// every C-family language but for type names, casts, how math functions
// and the scalar rules are spelled, special float literals, and how a
// float16 or bfloat16 element is read, written and rounded. A generator
// answers those; the rest is shared. Besides what the hooks return, the
// generated source must define, for every compute type it uses, the
// helpers ek_sign, ek_maximum, ek_minimum, ek_reduce_max, ek_reduce_min,
// and for integers ek_floor_divide, ek_remainder, ek_integer_pow (each with
// a trailing fault argument, passed as the caller's `fault` text).
class Dialect {
 public:
  virtual ~Dialect() = default;
  // The type values of `dtype` are computed in (float for float16 and
  // bfloat16) and the type of its buffer elements.
  virtual const char* compute_type(ember_dtype dtype) const = 0;
  virtual const char* storage_type(ember_dtype dtype) const = 0;
  // `value` converted to the language type `type` as C converts.
  virtual std::string cast(const std::string& type, const std::string& value) const = 0;
  // A math function of the compute type of `dtype`, named by its C double
  // name: a library call ("exp", "pow"; `instruction` false) or one that is
  // an instruction ("sqrt", "floor", "fabs", "nearbyint").
  virtual std::string math_call(const char* name, ember_dtype dtype, const std::vector<std::string>& args,
                                bool instruction, Requirements& req) const = 0;
  // The scalar rules' wrap_add, wrap_sub, wrap_mul and wrap_neg.
  virtual std::string wrap_call(const char* name, const std::vector<std::string>& args, Requirements& req) const = 0;
  // `value` (a compute value) converted to `to` as the catalogue's `copy`,
  // as a compute value of `to`.
  virtual std::string convert(ember_dtype to, const std::string& value, Requirements& req) const = 0;
  // NaN, or infinity of the sign given, in the compute type of a floating `dtype`.
  virtual std::string nan_literal(ember_dtype dtype) const = 0;
  virtual std::string infinity_literal(ember_dtype dtype, bool negative) const = 0;
  // Element `index` of `buffer` (of storage type) as a compute value, and
  // the statement that writes compute value `value` there.
  virtual std::string load(ember_dtype dtype, const std::string& buffer, const std::string& index,
                           Requirements& req) const = 0;
  virtual std::string store(ember_dtype dtype, const std::string& buffer, const std::string& index,
                            const std::string& value, Requirements& req) const = 0;
  // A float compute value rounded to float16 or bfloat16 and back.
  virtual std::string round_to_dtype(ember_dtype dtype, const std::string& value, Requirements& req) const = 0;
};

// The expression of an instruction other than load, store and reduce over
// `args` (compute values of the operands' dtypes). `fault` is the text the
// fault-setting helpers take (integer division and pow).
std::string op_expression(const Dialect& dialect, const Instruction& ins, ember_dtype operand_dtype,
                          const std::vector<std::string>& args, const std::string& fault, Requirements& req);

// A reduce's accumulator: its identity (kernel-ir.md: the empty reduction)
// and the combination of accumulator `acc` with `value`.
std::string reduce_identity(const Dialect& dialect, ReduceKind kind, ember_dtype dtype);
std::string reduce_combine(const Dialect& dialect, ReduceKind kind, ember_dtype dtype, const std::string& acc,
                           const std::string& value, Requirements& req);

}  // namespace ember::kernel_ir

#endif  // EMBER_KERNEL_IR_SCALAR_CODE_H_
