// The OpenCL API as the plugin uses it: version 1.2 entry points (what
// Intel's runtime and PoCL both provide), and the translation of OpenCL
// error codes into the plugin's exceptions.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION  // CLBlast's header may have chosen already
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

namespace ember::xpu {

// Name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES".
const char* cl_error_name(cl_int error);

// Throws ember::sdk::Error when `error` is not CL_SUCCESS: OUT_OF_MEMORY for
// the allocation failures, UNAVAILABLE for a lost device, INTERNAL otherwise.
// `what` names the call that failed.
void check_cl(cl_int error, const std::string& what);

}  // namespace ember::xpu
