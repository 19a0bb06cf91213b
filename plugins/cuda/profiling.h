// The GPU plugin's device timer (ABI 1.5, Note [Device activities]): a pair
// of timing events recorded on the kernel call's stream around the work it
// queues, read when the session stops.
#pragma once

#include <ember/ember_plugin.h>

namespace ember::gpu {

const ember_profiling_extension& profiling_extension();

}  // namespace ember::gpu
