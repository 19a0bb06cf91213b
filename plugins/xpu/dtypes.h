// The dtypes the plugin's kernels serve, and how OpenCL C spells them.
#pragma once

#include <ember/ember_plugin.h>

#include <vector>

namespace ember::xpu {

// How a dtype lies in a buffer, how kernels compute on it, and how a
// program of its kernels reads and writes it (the LOAD and STORE macros of
// cl/common.cl, picked by `storage`).
enum class Storage {
  kPlain,     // cl_storage is an OpenCL C type kernels index directly
  kFloat16,   // IEEE binary16 through vload_half and vstore_half_rte
  kBFloat16,  // the upper 16 bits of a float32, as ushort
};

struct DTypeInfo {
  ember_dtype dtype;
  const char* cl_storage;   // element type of the dtype's buffers (bool is uchar 0/1)
  const char* cl_compute;   // type kernels compute in: cl_storage, or float for float16 and bfloat16
  const char* cl_unsigned;  // unsigned twin of cl_compute, for wrapping arithmetic
  Storage storage;
  bool is_floating;
  bool is_bool;
  bool is_signed;
};

// Note [XPU dtypes]: every integer dtype, bool and float32 are plain OpenCL
// C types. float64 needs cl_khr_fp64 and is served only when every device
// has it. float16 and bfloat16 are storage types served on every device:
// kernels load them into float32, compute there and round to nearest even
// on store (ops.md "Floating point"). float16 goes through vload_half and
// vstore_half_rte, which OpenCL 1.2 has without cl_khr_fp16 (PoCL lacks
// it); bfloat16 is a float32's upper half, which OpenCL C has no type for.
// Devices with cl_khr_fp16 take the same float32 path, so every device
// rounds alike and agrees with the CPU plugin.
std::vector<ember_dtype> served_dtypes(bool with_fp64);

bool is_served(ember_dtype dtype, bool with_fp64);

// Throws UNIMPLEMENTED for a dtype the plugin does not serve.
const DTypeInfo& dtype_info(ember_dtype dtype);

}  // namespace ember::xpu
