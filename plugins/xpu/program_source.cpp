#include "program_source.h"

#include <sstream>
#include <string>

#include "cl_sources.h"
#include "kernels/elementwise_ops.h"

namespace ember::xpu {

// Note [One program per dtype]: PoCL (and to a lesser degree every OpenCL
// compiler) spends seconds per program build, so the plugin builds few:
// one per dtype, only when a kernel of that dtype first runs, with every
// family in it. Inside, one kernel serves a whole family (all unary ops,
// all binary ops, ...) and switches on an op code that is uniform across
// the launch, which costs nothing measurable next to the memory traffic and
// keeps the number of kernels to compile small.

namespace {

// Accumulation type: 64-bit unsigned for integers (sums wrap like int64),
// double for floats where the device has it.
const char* accumulation_type(const DTypeInfo& dtype, bool fp64) {
  if (!dtype.is_floating) return "ulong";
  return fp64 ? "double" : "float";
}

void write_prelude(std::ostream& out, const DTypeInfo& dtype, bool fp64) {
  if (fp64) out << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  // The CPU plugin does not contract a * b + c; neither do we, so results match.
  out << "#pragma OPENCL FP_CONTRACT OFF\n";
  out << "#define S " << dtype.cl_storage << "\n";
  out << "#define T " << dtype.cl_compute << "\n";
  out << "#define U " << dtype.cl_unsigned << "\n";
  out << "#define ACC " << accumulation_type(dtype, fp64) << "\n";
  out << "#define STORAGE_FLOAT16 " << (dtype.storage == Storage::kFloat16) << "\n";
  out << "#define STORAGE_BFLOAT16 " << (dtype.storage == Storage::kBFloat16) << "\n";
  out << "#define IS_FLOATING " << dtype.is_floating << "\n";
  out << "#define IS_DOUBLE " << (dtype.dtype == EMBER_DTYPE_FLOAT64) << "\n";
  out << "#define IS_BOOL " << dtype.is_bool << "\n";
  out << "#define IS_SIGNED " << dtype.is_signed << "\n";
  out << "#define PI_ACC " << (fp64 ? "M_PI" : "M_PI_F") << "\n";
}

void write_switch(std::ostream& out, const char* signature, const char* result_type,
                  std::span<const ElementwiseOp> table, const DTypeInfo& dtype) {
  out << signature << " {\n  switch (op) {\n";
  for (const ElementwiseOp& op : table) {
    const char* expression = expression_for(op, dtype);
    if (expression == nullptr) continue;
    out << "    case " << op_code(table, op) << ": return (" << result_type << ")(" << expression << ");  // "
        << op.name << "\n";
  }
  out << "  }\n  return (" << result_type << ")0;\n}\n";
}

// The statement that writes `x` (of the program's compute type T) as
// `target` at element `offset` of the bytes `out`.
std::string store_statement(const DTypeInfo& target) {
  const std::string element = std::string("((__global ") + target.cl_storage + "*)out)[offset]";
  if (target.is_bool) return element + " = (uchar)(x != (T)0);";
  switch (target.storage) {
    case Storage::kFloat16:
      return "vstore_half_rte((float)x, offset, (__global half*)out);";
    case Storage::kBFloat16:
      return element + " = bfloat16_bits((float)x);";
    case Storage::kPlain:
      break;
  }
  return element + " = (" + target.cl_storage + ")x;";
}

void write_store_as(std::ostream& out, bool fp64) {
  out << "void store_as(__global uchar* out, int dtype, long offset, T x) {\n  switch (dtype) {\n";
  for (ember_dtype target : served_dtypes(fp64)) {
    out << "    case " << static_cast<int>(target) << ": " << store_statement(dtype_info(target)) << " return;\n";
  }
  out << "  }\n}\n";
}

}  // namespace

std::string program_source(const DTypeInfo& dtype, bool device_has_fp64) {
  std::ostringstream out;
  write_prelude(out, dtype, device_has_fp64);
  out << cl_sources::bfloat16 << cl_sources::common << cl_sources::elementwise << cl_sources::reduce
      << cl_sources::index << cl_sources::scan_sort;
  if (dtype.is_floating) out << cl_sources::random;
  write_switch(out, "T unary_op(int op, T x)", "T", unary_ops(), dtype);
  write_switch(out, "uchar unary_bool_op(int op, T x)", "uchar", unary_bool_ops(), dtype);
  write_switch(out, "T binary_op(int op, T x, T y, __global int* error)", "T", binary_ops(), dtype);
  write_switch(out, "uchar binary_bool_op(int op, T x, T y)", "uchar", binary_bool_ops(), dtype);
  write_store_as(out, device_has_fp64);
  return out.str();
}

}  // namespace ember::xpu
