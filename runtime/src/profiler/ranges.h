#pragma once

#include <cstdint>
#include <string_view>

#include "ember/tensor.h"
#include "profiler/thread_buffer.h"

namespace ember::profiler {

// Where an open range lives, so closing it finds it again (or finds that its
// session is over: Note [Profiler generations]).
struct OpenRange {
  ThreadBuffer* buffer = nullptr;
  uint64_t generation = 0;
  int32_t index = -1;
};

// Opens a range on this thread as the child of the innermost one open. `name`
// must outlive the session (an op's name) unless `copy_name`.
OpenRange open_range(EventKind kind, const char* name, bool copy_name, const Tensor* inputs = nullptr,
                     int64_t num_inputs = 0, Device device = Device(-1, 0));
void close_range(const OpenRange& range) noexcept;

// A range open while alive.
class ScopedRange {
 public:
  explicit ScopedRange(const OpenRange& range) : range_(range) {}
  ~ScopedRange() { close_range(range_); }
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  OpenRange range_;
};

// Note [One event per op call]
// A call re-enters dispatch::call once per functionality step (Autograd,
// Trace) with the same OpCall; only the outermost entry is the user's op. A
// nested op (a derivative's, a decomposition's) has an OpCall of its own and
// is a child range. OpScope records the outermost entry only.
class OpScope {
 public:
  OpScope(const char* name, const void* call, const Tensor* inputs, int64_t num_inputs, Device device);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

  // Whether `call` is already being recorded on this thread (a redispatch).
  static bool recording(const void* call);

 private:
  OpenRange range_;
  const void* outer_call_;
};

}  // namespace ember::profiler
