#include "ember/profiler.h"
#include "profiler/profiler_state.h"
#include "profiler/ranges.h"

namespace ember::profiler {

RecordFunction::RecordFunction(std::string_view name) {
  if (!profiling_on()) return;
  const std::string copy(name);  // open_range keeps its own copy in the buffer
  const OpenRange range = open_range(EventKind::UserRange, copy.c_str(), true);
  buffer_ = range.buffer;
  generation_ = range.generation;
  index_ = range.index;
}

RecordFunction::~RecordFunction() { end(); }

void RecordFunction::end() {
  if (buffer_ == nullptr) return;
  close_range({static_cast<ThreadBuffer*>(buffer_), generation_, index_});
  buffer_ = nullptr;
}

}  // namespace ember::profiler
