// The GPU runtime API the plugin is written against: CUDA's, or HIP's
// through vendor/hip.h when the same sources build the ROCm plugin
// (EMBER_GPU_HIP). Everything else in the plugin includes this header, never
// a vendor's directly.
#pragma once

#if defined(EMBER_GPU_HIP)
#include "vendor/hip.h"
#else
#include <cuda_runtime.h>
// A value from the lane `delta` above, all 32 lanes of the warp taking part.
#define EMBER_GPU_SHFL_DOWN(value, delta) __shfl_down_sync(0xffffffffu, (value), (delta))
#endif

// EMBER_HOST_DEVICE marks the functions the kernels call and host tests
// check (tests/test_device_functions.cu).
#include <ember/sdk/host_device.hpp>
