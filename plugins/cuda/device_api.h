// The device table the plugin hands the core: allocation, copies, streams
// and events of the GPU runtime.
#pragma once

#include <ember/ember_plugin.h>

namespace ember::gpu {

const ember_device_api* device_api();

}  // namespace ember::gpu
