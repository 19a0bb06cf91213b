// EKIR (sdk/docs/kernel-ir.md) as typed structs, and the parser that
// checks a document against the spec before anything is generated from it.
#ifndef EMBER_KERNEL_IR_EKIR_H_
#define EMBER_KERNEL_IR_EKIR_H_

#include <ember/ember_plugin.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember::kernel_ir {

// An extent or an index term: a number, or launch parameter `param` ("pK").
struct Term {
  bool is_param = false;
  int64_t value = 0;  // the number, or K

  bool operator==(const Term&) const = default;
};

enum class Op {
  // memory and values
  load,
  store,
  constant,
  cast,
  where,
  reduce,
  // unary
  neg,
  abs,
  sign,
  exp,
  log,
  log1p,
  expm1,
  sqrt,
  rsqrt,
  sin,
  cos,
  tan,
  tanh,
  sigmoid,
  erf,
  erfc,
  asin,
  acos,
  atan,
  reciprocal,
  floor,
  ceil,
  round,
  trunc,
  bitwise_not,
  logical_not,
  // binary
  add,
  sub,
  mul,
  div,
  floor_divide,
  remainder,
  pow,
  atan2,
  maximum,
  minimum,
  bitwise_and,
  bitwise_or,
  bitwise_xor,
  logical_and,
  logical_or,
  logical_xor,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
};

enum class ReduceKind { sum, prod, max, min };

// inout (since EKIR 1.1): read and written in place (kernel-ir.md, `buffers`).
enum class BufferRole { input, output, inout };

// A `const` value: `number` for floating dtypes (inf and nan included),
// `integer` for the integer dtypes and bool (0 or 1), checked to fit; or
// (since EKIR 1.2) launch parameter `param`, converted to the dtype.
struct Constant {
  double number = 0.0;
  int64_t integer = 0;
  std::optional<int64_t> param;
};

// Where a value comes from: instruction `index` of loop `loop`.
struct ValueRef {
  int loop = 0;
  int index = 0;
};

struct Instruction {
  std::optional<int64_t> id;  // every instruction but store has one
  Op op = Op::load;
  ember_dtype dtype = EMBER_DTYPE_FLOAT32;  // of the result; a store's is its buffer's
  // load, store
  int buffer = -1;
  Term offset;
  std::vector<Term> strides;  // one per outer dimension, then one per extent
  // operands (store: the value; where: cond, a, b), resolved from ids
  std::vector<ValueRef> args;
  Constant constant;  // const
  ReduceKind kind{};  // reduce
};

struct Loop {
  std::vector<Term> extents;  // outermost first; empty: runs once per outer point
  std::vector<Instruction> body;
};

struct Buffer {
  ember_dtype dtype = EMBER_DTYPE_FLOAT32;
  BufferRole role = BufferRole::input;
};

struct Kernel {
  std::string name;
  int64_t params = 0;
  std::vector<Buffer> buffers;
  std::vector<Term> outer;
  std::vector<Loop> loops;
  bool deterministic = false;

  const Instruction& at(ValueRef ref) const { return loops[ref.loop].body[ref.index]; }
};

// Parses and checks EKIR JSON text. Every violation of the spec throws
// sdk::Error(INVALID_ARGUMENT) naming the instruction and the field.
Kernel parse_ekir(std::string_view text);

// "instruction 3 (loop 0, op 'sin')", or by position where it has no id
// (and without the op where it is not known yet), for messages.
std::string describe_instruction(std::optional<int64_t> id, int loop, int index, const std::string& op);

// The spec's names, for messages and the capabilities.
const char* op_name(Op op);
const char* reduce_kind_name(ReduceKind kind);
// "load store const ...": every body op this parser accepts.
std::string all_op_names();

// exp, log, the trigonometric and hyperbolic functions, erf, pow, atan2
// and sigmoid (an exp): the ops a generated kernel computes by calling a
// math library, not in a few instructions.
bool is_math_function(Op op);

bool is_floating(ember_dtype dtype);
bool is_reduced_float(ember_dtype dtype);  // float16, bfloat16
bool is_integer(ember_dtype dtype);        // the integer dtypes but bool
bool is_signed_integer(ember_dtype dtype);

}  // namespace ember::kernel_ir

#endif  // EMBER_KERNEL_IR_EKIR_H_
