#include "extension.h"

#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/code_generator.hpp>

#include <string>

#include "../devices.h"
#include "../dtypes.h"
#include "../profiling.h"
#include "generated_kernel.h"

namespace ember::xpu::codegen {
namespace {

constexpr char kName[] = "xpu codegen";

// The options are a JSON object whose keys this generator does not read.
sdk::CompiledKernel compile(std::string_view ir, const char*) { return compile_kernel(ir); }

// float64 only where every device has cl_khr_fp64 (Note [XPU dtypes]).
std::string served_dtype_names() {
  std::string names;
  for (ember_dtype d : served_dtypes(Devices::instance().all_have_fp64())) {
    names += (names.empty() ? "" : " ") + std::string(sdk::dtype_name(d));
  }
  return names;
}

}  // namespace

const ember_codegen_extension& codegen_extension() {
  static const std::string ops = kernel_ir::all_op_names();
  static const std::string dtypes = served_dtype_names();
  static const ember_codegen_extension extension =
      sdk::codegen_extension<GeneratedKernel, kName, devices_fingerprint, compile>(
          "xpu", ops.c_str(), dtypes.c_str(), &profiling_extension().header);
  return extension;
}

}  // namespace ember::xpu::codegen
