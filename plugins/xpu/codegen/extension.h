// The xpu plugin's code generator (ABI 1.2): EKIR kernels for xpu tensors,
// written as OpenCL C and built by each device's driver (docs/xpu-codegen.md).
#pragma once

#include <ember/ember_plugin.h>

namespace ember::xpu::codegen {

const ember_codegen_extension& codegen_extension();

}  // namespace ember::xpu::codegen
