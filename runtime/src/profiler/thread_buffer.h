#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ember/profiler.h"

namespace ember::profiler {

// One event as a thread records it: fixed size, names by pointer, shapes and
// stacks in side arrays of the buffer, so recording an op is a push of one
// record (Note [Per-thread buffers]).
struct RawEvent {
  const char* name = nullptr;  // an op's name (lives as long as the process) or a string of the buffer
  int64_t start_ns = 0;
  int64_t end_ns = -1;  // -1 while the range is open
  int32_t parent = -1;  // index of the enclosing range in the same buffer
  EventKind kind = EventKind::Op;
  int16_t device_type = -1;
  int32_t device_index = 0;
  // record_shapes: per input [ndim, dtype or -1, sizes...] in `shapes`.
  uint32_t shapes_begin = 0;
  uint32_t num_inputs = 0;
  // with_stack: frames in `strings`, from `stack_begin`.
  uint32_t stack_begin = 0;
  uint32_t num_frames = 0;
  const char* detail = nullptr;  // an instant event's JSON arguments, in `strings`
  uint64_t correlation = 0;      // an op's id in its device activities, 0 for none
  // Memory events.
  int64_t bytes = 0;
  uint64_t address = 0;
  uint64_t total_allocated = 0;
  uint64_t total_reserved = 0;
  uint64_t peak_allocated = 0;
};

// Note [Per-thread buffers]
// Each thread records into a buffer of its own, made on its first event and
// registered once, so threads never contend for one list: recording takes
// the buffer's own mutex, which only stop() ever competes for. That keeps an
// op's record to a clock read and a push (well under the 1 us budget of
// docs/profiler.md) while stop() can still collect safely from threads that
// are running ops. The registry holds the buffers of threads that have
// ended until the next stop() has read them.
struct ThreadBuffer {
  std::mutex mutex;
  uint64_t generation = 0;  // the session the events belong to (Note [Profiler generations])
  uint64_t thread_id = 0;
  int32_t open = -1;  // the innermost open range on this thread, -1 for none
  std::vector<RawEvent> events;
  std::vector<int64_t> shapes;
  std::deque<std::string> strings;  // a deque: pointers into it stay valid as it grows

  // With mutex held: empties the buffer if its events are of an older
  // session than `current`.
  void sync(uint64_t current);
  // With mutex held: a copy of `s` that lives as long as the buffer's events.
  const char* keep(std::string_view s);
};

// This thread's buffer, registered on first use.
ThreadBuffer& this_thread_buffer();
// Every registered buffer; forgets those of threads that have ended, which
// the caller reads for the last time.
std::vector<std::shared_ptr<ThreadBuffer>> all_thread_buffers();

}  // namespace ember::profiler
