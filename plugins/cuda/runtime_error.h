// Errors of the GPU runtime as the plugin's statuses.
#pragma once

#include <cstdint>
#include <string>

#include "gpu_runtime.h"

namespace ember::gpu {

// "cuda" or "rocm": the device type the plugin serves, used in messages.
const char* device_type_name();

// Throws the status for `error` (sdk::Error) unless it is cudaSuccess. The
// message names the plugin, `what` was being done, and the runtime's own
// name and description of the error; out of memory maps to
// EMBER_STATUS_OUT_OF_MEMORY, a missing device or driver to
// EMBER_STATUS_UNAVAILABLE. An error a kernel left behind (a fault, a
// device-side assert) reaches whichever call comes next, so its status
// names the op launched last on the current device instead (Note
// [Asynchronous errors] in ember/sdk/async.hpp).
void check(cudaError_t error, const std::string& what);

// Remembers `op` as the last op launched on `device`, for check().
void note_launch(int32_t device, const char* op);

// Checks the launch that was just made (a bad configuration shows up here,
// not as a return value).
void check_launch(const char* kernel);

}  // namespace ember::gpu
