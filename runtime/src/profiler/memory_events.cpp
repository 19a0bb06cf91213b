#include "profiler/memory_events.h"

#include <cstdint>

#include "profiler/thread_buffer.h"

namespace ember::profiler {

void record_memory(Device device, const void* address, int64_t bytes, const MemoryTotals& totals) noexcept {
  if (!memory_profiling_on()) return;
  try {
    const int64_t now = now_ns();
    ThreadBuffer& b = this_thread_buffer();
    std::lock_guard lock(b.mutex);
    b.sync(current_generation());
    RawEvent& e = b.events.emplace_back();
    e.kind = EventKind::Memory;
    e.name = "[memory]";  // PyTorch's name for these events
    e.start_ns = e.end_ns = now;
    e.parent = b.open;
    e.device_type = device.type;
    e.device_index = device.index;
    e.bytes = bytes;
    e.address = reinterpret_cast<uintptr_t>(address);
    e.total_allocated = totals.allocated;
    e.total_reserved = totals.reserved;
    e.peak_allocated = totals.peak_allocated;
  } catch (...) {
    // Out of memory for the event itself: the allocation goes on unrecorded
    // rather than fail (release() is noexcept).
  }
}

}  // namespace ember::profiler
