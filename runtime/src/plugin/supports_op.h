#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <ember/ember_plugin.h>

#include "ember/tensor.h"
#include "plugin/device_registry.h"

namespace ember::plugin {

// Whether the plugin answers ember_device_api.supports_op; without it the
// answer is "yes iff a kernel is registered", which the kernel lookup has
// already given.
inline bool answers_supports_op(const DeviceBackend& backend) {
  return backend.has(offsetof(ember_device_api, supports_op)) && backend.api->supports_op != nullptr;
}

// Asks the plugin about one call (the dtypes of its inputs, then of its
// outputs, and its attributes); throws NotImplementedError naming op, dtypes,
// device and plugin when the plugin says no, and the plugin's own error when
// the question fails.
void check_supports_op(DeviceBackend& backend, Device device, const std::string& op_name, const Tensor* inputs,
                       int64_t num_inputs, const Tensor* outputs, int64_t num_outputs, const ember_attr* attrs,
                       int64_t num_attrs);

}  // namespace ember::plugin
