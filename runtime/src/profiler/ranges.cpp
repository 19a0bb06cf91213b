#include "profiler/ranges.h"

#include <utility>
#include <vector>

#include "profiler/profiler_state.h"

namespace ember::profiler {
namespace {

thread_local const void* t_recorded_call = nullptr;

void record_shapes(ThreadBuffer& b, RawEvent& e, const Tensor* inputs, int64_t num_inputs) {
  e.shapes_begin = static_cast<uint32_t>(b.shapes.size());
  e.num_inputs = static_cast<uint32_t>(num_inputs);
  for (int64_t i = 0; i < num_inputs; ++i) {
    const Tensor& t = inputs[i];
    if (!t.defined()) {
      b.shapes.push_back(0);
      b.shapes.push_back(-1);
      continue;
    }
    const DimVector& sizes = t.sizes();
    b.shapes.push_back(static_cast<int64_t>(sizes.size()));
    b.shapes.push_back(static_cast<int64_t>(t.dtype()));
    b.shapes.insert(b.shapes.end(), sizes.begin(), sizes.end());
  }
}

}  // namespace

OpenRange open_range(EventKind kind, const char* name, bool copy_name, const Tensor* inputs, int64_t num_inputs,
                     Device device) {
  const uint32_t flags = profiling_flags();
  if (flags == 0) return {};
  // The stack capture may take the GIL: never while holding the buffer's
  // mutex, which stop() takes under the GIL.
  std::vector<std::string> frames;
  if ((flags & kRecordStack) != 0 && kind == EventKind::Op) {
    if (StackCapture capture = stack_capture()) capture(frames);
  }
  ThreadBuffer& b = this_thread_buffer();
  std::lock_guard lock(b.mutex);
  const uint64_t generation = current_generation();
  b.sync(generation);
  RawEvent& e = b.events.emplace_back();
  e.kind = kind;
  e.name = copy_name ? b.keep(name) : name;
  e.parent = b.open;
  e.device_type = device.type;
  e.device_index = device.index;
  if ((flags & kRecordShapes) != 0 && inputs != nullptr) record_shapes(b, e, inputs, num_inputs);
  if (!frames.empty()) {
    e.stack_begin = static_cast<uint32_t>(b.strings.size());
    e.num_frames = static_cast<uint32_t>(frames.size());
    for (std::string& f : frames) b.strings.push_back(std::move(f));
  }
  const auto index = static_cast<int32_t>(b.events.size() - 1);
  b.open = index;
  // Last, so the range's own bookkeeping is not in its time.
  e.start_ns = now_ns();
  return {&b, generation, index};
}

void close_range(const OpenRange& range) noexcept {
  if (range.buffer == nullptr) return;
  const int64_t end = now_ns();
  ThreadBuffer& b = *range.buffer;
  std::lock_guard lock(b.mutex);
  if (b.generation != range.generation || range.index >= static_cast<int32_t>(b.events.size())) return;
  RawEvent& e = b.events[range.index];
  e.end_ns = end;
  b.open = e.parent;
}

OpScope::OpScope(const char* name, const void* call, const Tensor* inputs, int64_t num_inputs, Device device)
    : range_(open_range(EventKind::Op, name, false, inputs, num_inputs, device)),
      outer_call_(std::exchange(t_recorded_call, call)) {}

OpScope::~OpScope() {
  t_recorded_call = outer_call_;
  close_range(range_);
}

bool OpScope::recording(const void* call) { return t_recorded_call == call; }

}  // namespace ember::profiler
