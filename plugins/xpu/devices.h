// The OpenCL devices the plugin serves, found once through the ICD loader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "opencl.h"

namespace ember::xpu {

// One OpenCL device with its own context and default (in-order) queue.
struct Device {
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_command_queue default_queue = nullptr;
  std::string name;
  // Platform, device and driver versions: what a compiled program binary
  // depends on besides its source.
  std::string fingerprint;
  uint64_t global_memory = 0;
  uint64_t max_allocation = 0;
  uint32_t compute_units = 0;
  bool has_fp64 = false;
};

// Note [Device selection]: the platform is the first whose name contains
// EMBER_XPU_PLATFORM (case-insensitive) when it is set, otherwise the first
// platform with a GPU, otherwise the first with any device (PoCL offers only
// its CPU device). Every GPU of the chosen platform becomes an ordinal; a
// platform without GPUs contributes all its devices. Finding nothing is not
// an error: the plugin loads with zero devices and says why.
class Devices {
 public:
  static Devices& instance();

  int32_t count() const { return static_cast<int32_t>(devices_.size()); }
  // Throws INVALID_ARGUMENT for an ordinal out of range, UNAVAILABLE (with
  // the reason) when there are no devices at all.
  Device& at(int32_t ordinal);
  // Why there are no devices; empty when there are some.
  const std::string& absence_reason() const { return absence_reason_; }
  // Whether every device has cl_khr_fp64 (false with no devices).
  bool all_have_fp64() const;

  void release();

 private:
  Devices();
  std::vector<Device> devices_;
  std::string absence_reason_;
};

}  // namespace ember::xpu
