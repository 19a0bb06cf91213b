#include "ember/profiler.h"
#include "profiler/profiler_state.h"
#include "profiler/thread_buffer.h"

namespace ember::profiler {

void record_instant(std::string_view name, std::string_view json_args) {
  if (!profiling_on()) return;
  const int64_t now = now_ns();
  ThreadBuffer& b = this_thread_buffer();
  std::lock_guard lock(b.mutex);
  b.sync(current_generation());
  RawEvent& e = b.events.emplace_back();
  e.kind = EventKind::Instant;
  e.name = b.keep(name);
  e.detail = b.keep(json_args);
  e.start_ns = e.end_ns = now;
  e.parent = b.open;
}

}  // namespace ember::profiler
