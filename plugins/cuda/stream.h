// Stream handles of the ABI are the runtime's streams; NULL is the device's
// legacy default stream, which the plugin's own streams (non-blocking) do
// not wait for.
#pragma once

#include <ember/ember_plugin.h>

#include "gpu_runtime.h"

namespace ember::gpu {

inline cudaStream_t stream_of(ember_stream_t stream) { return reinterpret_cast<cudaStream_t>(stream); }
inline ember_stream_t handle_of(cudaStream_t stream) { return reinterpret_cast<ember_stream_t>(stream); }

}  // namespace ember::gpu
