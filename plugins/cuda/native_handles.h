// The native handles record (ABI 1.3): a collective engine of the same
// vendor (NCCL for CUDA, RCCL for ROCm) enqueues on this plugin's streams.
#pragma once

#include <ember/ember_plugin.h>

namespace ember::gpu {

const ember_native_handles_extension& native_handles_extension();

}  // namespace ember::gpu
