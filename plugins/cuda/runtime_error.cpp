#include "runtime_error.h"

#include <ember/ember_plugin.hpp>
#include <ember/sdk/async.hpp>

#include <map>
#include <mutex>

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

// Errors of kernels that already ran, which the runtime reports to the next
// call on the device whatever that call is.
bool raised_by_earlier_kernel(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
#if !defined(EMBER_GPU_HIP)
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
#endif
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

std::mutex g_launches_mutex;
std::map<int32_t, std::string> g_last_launch;  // device -> op

}  // namespace

void note_launch(int32_t device, const char* op) {
  std::lock_guard lock(g_launches_mutex);
  g_last_launch[device] = op;
}

void check(cudaError_t error, const std::string& what) {
  if (error == cudaSuccess) return;
  // A failed call leaves the error as the thread's last one; reading it here
  // keeps it from being reported again by the next unrelated check_launch.
  (void)cudaGetLastError();
  const std::string message = std::string(device_type_name()) + ": " + what + " failed: " + cudaGetErrorName(error) +
                              " (" + cudaGetErrorString(error) + ")";
  int device = -1;
  if (raised_by_earlier_kernel(error) && cudaGetDevice(&device) == cudaSuccess) {
    std::lock_guard lock(g_launches_mutex);
    const auto last = g_last_launch.find(device);
    if (last != g_last_launch.end()) {
      throw sdk::asynchronous_error(last->second + " (the last op launched on " + device_type_name() + ":" +
                                        std::to_string(device) + "; CUDA_LAUNCH_BLOCKING=1 makes each op report " +
                                        "its own error)",
                                    code_for(error), message);
    }
  }
  sdk::fail(code_for(error), message);
}

void check_launch(const char* kernel) { check(cudaGetLastError(), std::string("launching ") + kernel); }

}  // namespace ember::gpu
