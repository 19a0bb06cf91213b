// Copies between pageable host memory and the device through pinned
// staging buffers (Note [Pinned staging]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpu_runtime.h"

namespace ember::gpu {

// Both return once the bytes have arrived (ember_copy_args requires it).
void copy_host_to_device(int32_t device, void* dst, const void* src, size_t num_bytes, cudaStream_t stream);
void copy_device_to_host(int32_t device, void* dst, const void* src, size_t num_bytes, cudaStream_t stream);

// Frees every device's staging buffers (plugin shutdown).
void release_staging();

}  // namespace ember::gpu
