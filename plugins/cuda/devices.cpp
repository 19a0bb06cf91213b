#include "devices.h"

#include <ember/ember_plugin.hpp>

#include "gpu_runtime.h"
#include "runtime_error.h"

namespace ember::gpu {

Devices& Devices::instance() {
  static Devices devices;
  return devices;
}

// With no driver or no GPU the runtime answers cudaGetDeviceCount with an
// error; the plugin still loads, with no device, and says why.
Devices::Devices() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    absence_reason_ = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
    return;
  }
  if (count == 0) absence_reason_ = "the runtime reports no device";
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp props{};
    check(cudaGetDeviceProperties(&props, i), "cudaGetDeviceProperties(" + std::to_string(i) + ")");
    devices_.push_back(Device{props.name, props.totalGlobalMem, static_cast<uint32_t>(props.multiProcessorCount)});
  }
}

const Device& Devices::at(int32_t device) const {
  if (devices_.empty()) {
    sdk::fail(EMBER_STATUS_UNAVAILABLE, std::string(device_type_name()) + ": no device (" + absence_reason_ + ")");
  }
  if (device < 0 || device >= count()) {
    sdk::fail(EMBER_STATUS_OUT_OF_RANGE, std::string(device_type_name()) + ": device " + std::to_string(device) +
                                             " does not exist (" + std::to_string(count()) + " present)");
  }
  return devices_[static_cast<size_t>(device)];
}

void use_device(int32_t device) {
  Devices::instance().at(device);
  check(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
}

}  // namespace ember::gpu
