// The dtypes the plugin's kernels serve, and how OpenCL C spells them.
#pragma once

#include <ember/ember_plugin.h>

#include <vector>

namespace ember::xpu {

struct DTypeInfo {
  ember_dtype dtype;
  const char* cl_type;      // storage type in OpenCL C (bool is uchar 0/1)
  const char* cl_unsigned;  // same-width unsigned type, for wrapping arithmetic
  bool is_floating;
  bool is_bool;
  bool is_signed;
};

// Note [XPU dtypes]: every integer dtype, bool and float32 are plain OpenCL
// C types. float64 needs cl_khr_fp64 and is served only when every device
// has it. float16 (cl_khr_fp16) and bfloat16 (no OpenCL type) are not
// served: the core reports them as unsupported on xpu.
std::vector<ember_dtype> served_dtypes(bool with_fp64);

// The dtypes copy can write: the served ones, and float16 and bfloat16
// (rounded from float32 like the CPU plugin does), so tensors convert to
// them on the device even though no kernel reads them.
bool is_copy_target(ember_dtype dtype, bool with_fp64);

// Throws UNIMPLEMENTED for a dtype the plugin does not serve.
const DTypeInfo& dtype_info(ember_dtype dtype);

}  // namespace ember::xpu
