// The ember_device_api table of the XPU plugin.
#pragma once

#include <ember/ember_plugin.h>

namespace ember::xpu {

const ember_device_api* device_api();

}  // namespace ember::xpu
