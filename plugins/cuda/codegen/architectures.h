// The architectures generated kernels are compiled for: each device's
// compute capability, as major * 10 + minor (90 for an H100).
#pragma once

#include <cstdint>
#include <vector>

namespace ember::gpu::codegen {

int device_architecture(int32_t device);

// Each architecture among the devices, once, in increasing order;
// UNAVAILABLE, saying why, without a device.
std::vector<int> device_architectures();

}  // namespace ember::gpu::codegen
