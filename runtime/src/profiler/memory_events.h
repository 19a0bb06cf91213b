#pragma once

#include <cstdint>

#include "ember/device.h"
#include "profiler/profiler_state.h"

namespace ember::profiler {

// The allocator's totals on a device just after a change.
struct MemoryTotals {
  uint64_t allocated = 0;
  uint64_t reserved = 0;
  uint64_t peak_allocated = 0;
};

// Records an allocation (bytes > 0) or a free (bytes < 0) of the block at
// `address` on this thread, as a child of the innermost open range (the op
// that allocated or freed it). The caller checks memory_profiling_on() first.
void record_memory(Device device, const void* address, int64_t bytes, const MemoryTotals& totals) noexcept;

}  // namespace ember::profiler
