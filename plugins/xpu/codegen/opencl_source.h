// EKIR -> OpenCL C: the program of one kernel, `ek_kernel`, and how to
// launch it (Note [Generated OpenCL kernels] in opencl_source.cpp).
#pragma once

#include <ember/kernel_ir/ekir.h>

#include <string>

namespace ember::xpu::codegen {

// Work-items per work-group of every generated kernel, fixed so that a
// reduction's order depends on the extents alone.
inline constexpr int kGroupSize = 64;

struct OpenClSource {
  std::string text;
  // One work-group per outer point (kernels with a loop over extents);
  // otherwise one work-item per outer point.
  bool group_per_point = false;
  // The kernel takes a last argument, a zeroed uint its fault bits are
  // or-ed into, which the launch reads back.
  bool can_fault = false;
  // It computes in double (cl_khr_fp64).
  bool uses_fp64 = false;
};

OpenClSource generate_opencl_source(const kernel_ir::Kernel& kernel);

}  // namespace ember::xpu::codegen
