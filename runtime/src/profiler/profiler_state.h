#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "ember/profiler.h"

namespace ember::profiler {

// Note [Profiling flag]
// Every op reads whether profiling is on, so the answer is one relaxed load
// of one atomic word: when off, the dispatcher pays a load and a branch that
// is never taken, nothing else. The word holds what the session records
// (ops, shapes, memory, stacks) so the allocator's check is the same load.
// Relaxed is enough: a thread that sees the flag late records nothing, or
// one event more into its own buffer, which the session's generation sorts
// out (Note [Profiler generations]).
enum ProfilingFlags : uint32_t {
  kRecordOps = 1u << 0,
  kRecordShapes = 1u << 1,
  kRecordMemory = 1u << 2,
  kRecordStack = 1u << 3,
};

extern std::atomic<uint32_t> g_profiling_flags;

inline uint32_t profiling_flags() { return g_profiling_flags.load(std::memory_order_relaxed); }
inline bool profiling_on() { return profiling_flags() != 0; }
inline bool memory_profiling_on() { return (profiling_flags() & kRecordMemory) != 0; }

// Note [Profiler generations]
// Each start() and stop() moves the generation on. A thread buffer keeps the
// generation its events belong to and empties itself when it meets a newer
// one, so a session never sees events of the one before, and a range opened
// in one session and closed in the next (or after stop) changes nothing.
uint64_t current_generation();

// The steady clock in nanoseconds: the clock of every event.
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The Python layer's stack capture, or null (set_stack_capture).
StackCapture stack_capture();

}  // namespace ember::profiler
