#include "architectures.h"

#include <ember/sdk/status.hpp>

#include <set>
#include <string>

#include "../devices.h"
#include "../gpu_runtime.h"
#include "../runtime_error.h"

namespace ember::gpu::codegen {

int device_architecture(int32_t device) {
  Devices::instance().at(device);
  int major = 0;
  int minor = 0;
  const std::string which = " of device " + std::to_string(device);
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability" + which);
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "compute capability" + which);
  return major * 10 + minor;
}

std::vector<int> device_architectures() {
  Devices& devices = Devices::instance();
  if (devices.count() == 0) {
    sdk::fail(EMBER_STATUS_UNAVAILABLE, "cuda codegen: no CUDA device (" + devices.absence_reason() + ")");
  }
  std::set<int> architectures;
  for (int32_t d = 0; d < devices.count(); ++d) architectures.insert(device_architecture(d));
  return {architectures.begin(), architectures.end()};
}

}  // namespace ember::gpu::codegen
