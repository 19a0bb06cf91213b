// The ember_device_api table of the emulated device.
#pragma once

#include <ember/ember_plugin.h>

namespace emu {

const ember_device_api* device_api();

}  // namespace emu
