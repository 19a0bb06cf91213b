#include "runtime_error.h"

#include <ember/ember_plugin.hpp>

namespace ember::gpu {

const char* device_type_name() {
#if defined(EMBER_GPU_HIP)
  return "rocm";
#else
  return "cuda";
#endif
}

namespace {

ember_status_code code_for(cudaError_t error) {
  switch (error) {
    case cudaErrorMemoryAllocation: return EMBER_STATUS_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return EMBER_STATUS_UNAVAILABLE;
    default: return EMBER_STATUS_INTERNAL;
  }
}

}  // namespace

void check(cudaError_t error, const std::string& what) {
  if (error == cudaSuccess) return;
  // A failed call leaves the error as the thread's last one; reading it here
  // keeps it from being reported again by the next unrelated check_launch.
  (void)cudaGetLastError();
  sdk::fail(code_for(error), std::string(device_type_name()) + ": " + what + " failed: " + cudaGetErrorName(error) +
                                 " (" + cudaGetErrorString(error) + ")");
}

void check_launch(const char* kernel) { check(cudaGetLastError(), std::string("launching ") + kernel); }

}  // namespace ember::gpu
