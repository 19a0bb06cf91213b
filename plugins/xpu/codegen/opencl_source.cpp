#include "opencl_source.h"

#include <string>

#include "cl_sources.h"
#include "codegen_sources.h"
#include "opencl_dialect.h"

namespace ember::xpu::codegen {

kernel_ir::GroupKernel generate_opencl_source(const kernel_ir::Kernel& kernel) {
  static const OpenClDialect dialect;
  kernel_ir::GroupKernel generated = kernel_ir::generate_group_kernel(kernel, dialect);
  std::string text;
  if (generated.uses_fp64) text += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  // Generated code does not contract a * b + c, as the catalogue's eager kernels do not.
  text += "#pragma OPENCL FP_CONTRACT OFF\n";
  text += "#define EK_FP64 " + std::to_string(generated.uses_fp64 ? 1 : 0) + "\n";
  text += "#define EK_FAULT_INTEGER_DIVISION_BY_ZERO " + std::to_string(kernel_ir::kFaultIntegerDivisionByZero) + "u\n";
  text += "#define EK_FAULT_NEGATIVE_INTEGER_POWER " + std::to_string(kernel_ir::kFaultNegativeIntegerPower) + "u\n";
  text += cl_sources::bfloat16;
  text += embedded::kCodegenPrelude;
  generated.text = text + generated.text;
  return generated;
}

}  // namespace ember::xpu::codegen
