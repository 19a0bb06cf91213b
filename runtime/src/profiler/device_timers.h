#pragma once
// Device time (Note [Device activities]): the sources of it that plugins
// register, and the correlation of what they measure with the op it ran for.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::profiler {

// One stretch of device work, in steady-clock nanoseconds.
struct DeviceActivity {
  uint64_t correlation_id = 0;
  int32_t device_type = -1;
  int32_t device_index = 0;
  std::string name;  // the native kernel's; empty: the op's
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// A device's timer (a plugin's profiling extension). Neither call throws: a
// timer that fails says so in the log and gives what it has.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual void start() noexcept = 0;
  // Appends the session's activities to `out` and forgets them.
  virtual void stop(std::vector<DeviceActivity>& out) noexcept = 0;
};

// Registers the timer of a device type for the rest of the process; it is
// started at once when a session is running.
void add_device_timer(std::shared_ptr<DeviceTimer> timer, int32_t device_type);

// Called by start() and stop() (session.cpp).
void start_device_timers();
std::vector<DeviceActivity> stop_device_timers();

// The correlation id of the op range open on this thread, given on first
// ask; 0 when no session records or no op is open.
uint64_t correlate_open_op();

}  // namespace ember::profiler
