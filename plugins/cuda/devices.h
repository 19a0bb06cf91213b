// The GPUs the runtime reports, found once, and the current device of the
// calling thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember::gpu {

struct Device {
  std::string name;
  uint64_t total_memory = 0;
  uint32_t multiprocessors = 0;
};

class Devices {
 public:
  static Devices& instance();

  int32_t count() const { return static_cast<int32_t>(devices_.size()); }
  // Why there is no device (no driver, none present), for the log.
  const std::string& absence_reason() const { return absence_reason_; }
  // The device of ordinal `device`; throws UNAVAILABLE when there is none
  // and OUT_OF_RANGE for an ordinal past the last.
  const Device& at(int32_t device) const;

 private:
  Devices();
  std::vector<Device> devices_;
  std::string absence_reason_;
};

// Makes `device` the calling thread's current device (checked by at()).
void use_device(int32_t device);

}  // namespace ember::gpu
