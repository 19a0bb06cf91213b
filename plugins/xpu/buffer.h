// Note [Device pointers are cl_mem]: the plugin's device memory is OpenCL
// buffers, and the pointer it hands the core from allocate() is the cl_mem
// handle itself (DLPack's kDLOpenCL convention: `data` is the cl_mem and
// `byte_offset` locates the first element). The host never dereferences it
// and the core never does arithmetic on it: views and copies carry their
// offsets separately (DLTensor.byte_offset, ember_copy_args.*_offset), and
// the plugin turns them into buffer offsets, never into pointers.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

#include "opencl.h"

namespace ember::xpu {

inline cl_mem buffer_of(const void* device_pointer) {
  return static_cast<cl_mem>(const_cast<void*>(device_pointer));
}

inline cl_mem buffer_of(const DLTensor& t) { return buffer_of(t.data); }

// Offset of a tensor's first element in elements of its own dtype.
inline int64_t element_offset(const DLTensor& t) {
  return static_cast<int64_t>(t.byte_offset / ((t.dtype.bits * t.dtype.lanes + 7) / 8));
}

}  // namespace ember::xpu
