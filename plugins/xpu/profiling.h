// The XPU plugin's device timer (ABI 1.5, Note [Device activities]): each
// command a timed kernel call enqueues carries an OpenCL profiling event,
// read when the session stops. Queues are created with profiling enabled
// so that a session can start at any time.
#pragma once

#include <ember/ember_plugin.h>

#include <cstdint>
#include <string>

#include "opencl.h"

namespace ember::xpu {

const ember_profiling_extension& profiling_extension();

// One command of a kernel call: hand event() to the enqueue call (NULL, and
// nothing kept, when the call is not timed), then keep() it once enqueued.
class CommandTiming {
 public:
  CommandTiming() = default;
  ~CommandTiming();
  CommandTiming(const CommandTiming&) = delete;
  CommandTiming& operator=(const CommandTiming&) = delete;

  cl_event* event();
  // The session owns the event from here; `name` is the native kernel's.
  void keep(const std::string& name);

 private:
  cl_event event_ = nullptr;
};

}  // namespace ember::xpu
