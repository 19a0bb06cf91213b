// The elementwise ops as plain data: one OpenCL C expression per dtype class
// over `x` (and `y`) of the program's compute type T, with U its unsigned twin.
// The program generator turns each table into one switch (the op's code is
// its row), and registration serves (op, dtype) exactly where the
// expression exists, so the two can never disagree.
#pragma once

#include <span>

#include "../dtypes.h"

namespace ember::xpu {

struct ElementwiseOp {
  const char* name;
  const char* floating;  // float16, bfloat16 (as float), float32, float64; NULL: not served
  const char* integer;   // uint8 .. int64; NULL: not served
  const char* boolean;   // bool; NULL: not served
};

std::span<const ElementwiseOp> unary_ops();        // x -> T
std::span<const ElementwiseOp> unary_bool_ops();   // x -> bool
std::span<const ElementwiseOp> binary_ops();       // x, y -> T
std::span<const ElementwiseOp> binary_bool_ops();  // x, y -> bool

// The op's expression for a dtype, or NULL where the op does not apply.
const char* expression_for(const ElementwiseOp& op, const DTypeInfo& dtype);

// The row of `op` in `table`, which is the code the kernels switch on.
int op_code(std::span<const ElementwiseOp> table, const ElementwiseOp& op);

}  // namespace ember::xpu
