// The OpenCL C source of the program that holds every kernel of one dtype.
#pragma once

#include <string>

#include "dtypes.h"

namespace ember::xpu {

// `device_has_fp64` decides the accumulation type of floating programs and
// whether copy_to may write float64.
std::string program_source(const DTypeInfo& dtype, bool device_has_fp64);

}  // namespace ember::xpu
