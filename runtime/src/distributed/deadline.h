#pragma once
// When a wait of a given length ends. A timeout may be as long as Python's
// timedelta.max, which steady_clock's nanoseconds cannot add to now: waits
// are capped at kLongestWait, far beyond any job, instead of overflowing
// into the past and timing out at once.
#include <algorithm>
#include <chrono>

#include "distributed/store.h"

namespace ember::distributed {

using SteadyTime = std::chrono::steady_clock::time_point;

inline constexpr Milliseconds kLongestWait = std::chrono::hours(24 * 365 * 10);

inline SteadyTime deadline_after(Milliseconds timeout) {
  return std::chrono::steady_clock::now() + std::clamp(timeout, Milliseconds(0), kLongestWait);
}

}  // namespace ember::distributed
