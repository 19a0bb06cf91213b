#include "cuda_dialect.h"

#include <ember/sdk/status.hpp>

#include "cuda_codegen_sources.h"

namespace ember::gpu::codegen {
namespace {

using kernel_ir::is_reduced_float;

std::string call(const std::string& function, const std::vector<std::string>& args) {
  std::string text = function + "(";
  for (size_t a = 0; a < args.size(); ++a) text += (a > 0 ? ", " : "") + args[a];
  return text + ")";
}

bool is_double(ember_dtype dtype) { return dtype == EMBER_DTYPE_FLOAT64; }

}  // namespace

const char* CudaDialect::compute_type(ember_dtype dtype) const {
  switch (dtype) {
    case EMBER_DTYPE_BOOL:
      return "bool";
    case EMBER_DTYPE_UINT8:
      return "unsigned char";
    case EMBER_DTYPE_INT8:
      return "signed char";
    case EMBER_DTYPE_INT16:
      return "short";
    case EMBER_DTYPE_INT32:
      return "int";
    case EMBER_DTYPE_INT64:
      return "long long";
    case EMBER_DTYPE_FLOAT16:
    case EMBER_DTYPE_BFLOAT16:
    case EMBER_DTYPE_FLOAT32:
      return "float";
    case EMBER_DTYPE_FLOAT64:
      return "double";
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "unknown dtype");
}

const char* CudaDialect::storage_type(ember_dtype dtype) const {
  if (dtype == EMBER_DTYPE_BOOL) return "unsigned char";
  if (is_reduced_float(dtype)) return "unsigned short";
  return compute_type(dtype);
}

std::string CudaDialect::cast(const std::string& type, const std::string& value) const {
  return "((" + type + ")(" + value + "))";
}

// CUDA names the float functions as C does ("sinf"); C's nearbyint is rint.
std::string CudaDialect::math_call(const char* name, ember_dtype dtype, const std::vector<std::string>& args, bool,
                                   kernel_ir::Requirements&) const {
  const std::string base = std::string(name) == "nearbyint" ? "rint" : name;
  return call(base + (is_double(dtype) ? "" : "f"), args);
}

std::string CudaDialect::wrap_call(const char* name, const std::vector<std::string>& args,
                                   kernel_ir::Requirements& req) const {
  req.scalar_rules = true;
  return call(std::string("ek_") + name, args);
}

std::string CudaDialect::convert(ember_dtype to, const std::string& value, kernel_ir::Requirements& req) const {
  if (to == EMBER_DTYPE_BOOL) return "(" + value + " != 0)";
  if (is_reduced_float(to)) return round_to_dtype(to, cast("float", value), req);
  return cast(compute_type(to), value);
}

std::string CudaDialect::nan_literal(ember_dtype dtype) const {
  return is_double(dtype) ? "__longlong_as_double(0x7ff8000000000000LL)" : "__int_as_float(0x7fc00000)";
}

std::string CudaDialect::infinity_literal(ember_dtype dtype, bool negative) const {
  const std::string inf =
      is_double(dtype) ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)";
  return negative ? "(-" + inf + ")" : inf;
}

std::string CudaDialect::load(ember_dtype dtype, const std::string& buffer, const std::string& index,
                              kernel_ir::Requirements&) const {
  const std::string element = buffer + "[" + index + "]";
  if (dtype == EMBER_DTYPE_BOOL) return "(" + element + " != 0)";
  if (dtype == EMBER_DTYPE_FLOAT16) return "ek_half_to_float(" + element + ")";
  if (dtype == EMBER_DTYPE_BFLOAT16) return "ek_bfloat16_to_float(" + element + ")";
  return element;
}

std::string CudaDialect::store(ember_dtype dtype, const std::string& buffer, const std::string& index,
                               const std::string& value, kernel_ir::Requirements&) const {
  std::string stored = value;
  if (dtype == EMBER_DTYPE_BOOL) stored = cast("unsigned char", value);
  if (dtype == EMBER_DTYPE_FLOAT16) stored = "ek_float_to_half(" + value + ")";
  if (dtype == EMBER_DTYPE_BFLOAT16) stored = "ek_float_to_bfloat16(" + value + ")";
  return buffer + "[" + index + "] = " + stored + ";";
}

std::string CudaDialect::round_to_dtype(ember_dtype dtype, const std::string& value, kernel_ir::Requirements&) const {
  return (dtype == EMBER_DTYPE_FLOAT16 ? "ek_round_half(" : "ek_round_bfloat16(") + value + ")";
}

std::string CudaDialect::kernel_head(const std::string& parameters) const {
  return "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(kernel_ir::kGroupSize) + ") ek_kernel(" +
         parameters + ")";
}

std::string CudaDialect::buffer_parameter(const std::string& storage_type, bool input, const std::string& name) const {
  return (input ? "const " : "") + storage_type + "* __restrict__ " + name;
}

std::string CudaDialect::fault_parameter(const std::string& name) const { return "unsigned int* " + name; }

std::string CudaDialect::global_index() const { return "((long)blockIdx.x * blockDim.x + threadIdx.x)"; }

std::string CudaDialect::group_index() const { return "(long)blockIdx.x"; }

std::string CudaDialect::local_index() const { return "(int)threadIdx.x"; }

std::string CudaDialect::shared_array(const std::string& type, const std::string& name, int size) const {
  return "__shared__ " + type + " " + name + "[" + std::to_string(size) + "];";
}

std::string CudaDialect::barrier() const { return "__syncthreads();"; }

std::string CudaDialect::atomic_or(const std::string& word, const std::string& value) const {
  return "atomicOr(" + word + ", " + value + ");";
}

kernel_ir::GroupKernel generate_cuda_source(const kernel_ir::Kernel& kernel) {
  static const CudaDialect dialect;
  kernel_ir::GroupKernel generated = kernel_ir::generate_group_kernel(kernel, dialect);
  generated.text = std::string("#define EK_FAULT_INTEGER_DIVISION_BY_ZERO ") +
                   std::to_string(kernel_ir::kFaultIntegerDivisionByZero) + "u\n" +
                   "#define EK_FAULT_NEGATIVE_INTEGER_POWER " + std::to_string(kernel_ir::kFaultNegativeIntegerPower) +
                   "u\n" + embedded::kCudaCodegenPrelude + generated.text;
  return generated;
}

}  // namespace ember::gpu::codegen
