#pragma once

// The host profiler: what ran, where, for how long, and what memory it took
// (docs/profiler.md). Python's ember.profiler is built on these calls.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ember/device.h"

namespace ember::profiler {

struct ProfilerConfig {
  bool record_shapes = false;   // input shapes and dtypes of every op
  bool profile_memory = false;  // an event per allocation and free of the caching allocators
  bool with_stack = false;      // the Python stack of every op (when a stack capture is installed)
};

enum class EventKind : uint8_t {
  Op,         // one call through the dispatcher
  UserRange,  // a record_function range
  Memory,     // an allocation (bytes > 0) or a free (bytes < 0)
  Instant,    // a moment with details: a compile log event (Note [Compile logs])
  Device,     // device work of an op, as its plugin timed it (Note [Device activities])
};

struct ProfilerEvent {
  EventKind kind = EventKind::Op;
  std::string name;
  // Steady-clock nanoseconds; a memory event has end_ns == start_ns.
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t thread_id = 0;  // the OS thread id of the thread that recorded it
  // The device of an op's tensors, or of a memory event; -1 for a range, or
  // an op without tensor arguments (a factory).
  int32_t device_type = -1;
  int32_t device_index = 0;
  int64_t id = 0;          // index of the event in the list stop() returns
  // The innermost range open on its thread when it began, -1 at top level;
  // for a device activity, the op it ran for.
  int64_t parent_id = -1;
  // With record_shapes, an op's inputs in order; an undefined tensor is an
  // empty shape and an empty dtype name.
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::string> input_dtypes;
  std::vector<std::string> stack;  // with_stack: innermost frame first
  std::string detail;              // an instant event's arguments, a JSON object's text
  // Memory events: the block's address and size, then the allocator's
  // totals on the device just after the change.
  int64_t bytes = 0;
  uint64_t address = 0;
  uint64_t total_allocated = 0;
  uint64_t total_reserved = 0;
  uint64_t peak_allocated = 0;
};

// Turns recording on for every thread, and device timing on for every
// plugin device that has it. Throws ember::Error if a session is
// already running (one profiler at a time, as in PyTorch).
void start(const ProfilerConfig& config);
// Turns recording off and returns every event recorded since start(), each
// thread's in the order they began, then the device activities. A range
// still open is left out. Throws if no session is running.
std::vector<ProfilerEvent> stop();
bool is_enabled();
// The names of the device types whose plugin times its kernels.
std::vector<std::string> timed_device_types();

// A named range on this thread while alive (torch's record_function); the
// ops it runs are its children. Costs one branch when not profiling.
class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name);
  ~RecordFunction();
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;
  // Closes the range before destruction; later calls do nothing.
  void end();

 private:
  void* buffer_ = nullptr;  // the thread buffer the range was opened in
  uint64_t generation_ = 0;
  int32_t index_ = -1;
};

// Records an instant event on this thread when profiling; `json_args` is
// the text of a JSON object, kept as given.
void record_instant(std::string_view name, std::string_view json_args);

// The Python layer installs this to give ops their Python stack when
// with_stack is on: it appends "file(line): function" frames, innermost
// first, and must not throw.
using StackCapture = void (*)(std::vector<std::string>& frames);
void set_stack_capture(StackCapture capture);

}  // namespace ember::profiler
