// start() and stop(): the profiling session, and the events it hands back.
#include <mutex>
#include <unordered_map>

#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/profiler.h"
#include "profiler/device_timers.h"
#include "profiler/profiler_state.h"
#include "profiler/thread_buffer.h"

namespace ember::profiler {

std::atomic<uint32_t> g_profiling_flags{0};

namespace {

std::atomic<uint64_t> g_generation{1};
std::atomic<StackCapture> g_stack_capture{nullptr};
std::mutex g_session_mutex;
uint64_t g_session_generation = 0;  // with g_session_mutex

void add_shapes(const ThreadBuffer& b, const RawEvent& raw, ProfilerEvent& e) {
  size_t at = raw.shapes_begin;
  for (uint32_t i = 0; i < raw.num_inputs; ++i) {
    const auto ndim = static_cast<size_t>(b.shapes[at]);
    const int64_t dtype = b.shapes[at + 1];
    e.input_shapes.emplace_back(b.shapes.begin() + static_cast<ptrdiff_t>(at + 2),
                                b.shapes.begin() + static_cast<ptrdiff_t>(at + 2 + ndim));
    e.input_dtypes.emplace_back(dtype < 0 ? std::string() : std::string(dtype_name(static_cast<DType>(dtype))));
    at += 2 + ndim;
  }
}

// With b.mutex held: b's finished events appended to `out`, ids renumbered
// across the whole list; the ids of ops with device activities in `ops`.
void collect(const ThreadBuffer& b, std::vector<ProfilerEvent>& out, std::unordered_map<uint64_t, int64_t>& ops) {
  std::vector<int64_t> id_of(b.events.size(), -1);
  for (size_t i = 0; i < b.events.size(); ++i) {
    const RawEvent& raw = b.events[i];
    if (raw.end_ns < 0) continue;  // still open when the session ended
    ProfilerEvent& e = out.emplace_back();
    e.id = static_cast<int64_t>(out.size() - 1);
    id_of[i] = e.id;
    e.kind = raw.kind;
    e.name = raw.name;
    e.start_ns = raw.start_ns;
    e.end_ns = raw.end_ns;
    e.thread_id = b.thread_id;
    e.device_type = raw.device_type;
    e.device_index = raw.device_index;
    // A parent began first, so its id is known; one that never closed makes
    // its children top-level.
    e.parent_id = raw.parent >= 0 ? id_of[static_cast<size_t>(raw.parent)] : -1;
    add_shapes(b, raw, e);
    for (uint32_t f = 0; f < raw.num_frames; ++f) e.stack.push_back(b.strings[raw.stack_begin + f]);
    if (raw.detail != nullptr) e.detail = raw.detail;
    e.bytes = raw.bytes;
    e.address = raw.address;
    e.total_allocated = raw.total_allocated;
    e.total_reserved = raw.total_reserved;
    e.peak_allocated = raw.peak_allocated;
    if (raw.correlation != 0) ops.emplace(raw.correlation, e.id);
  }
}

// Each activity as a child of its op; one whose op is not in the session
// (it began before start) is left out.
void add_activities(std::vector<DeviceActivity>& activities, const std::unordered_map<uint64_t, int64_t>& ops,
                    std::vector<ProfilerEvent>& out) {
  for (DeviceActivity& a : activities) {
    const auto op = ops.find(a.correlation_id);
    if (op == ops.end()) continue;
    const ProfilerEvent& parent = out[static_cast<size_t>(op->second)];
    ProfilerEvent e;
    e.kind = EventKind::Device;
    e.name = a.name.empty() ? parent.name : std::move(a.name);
    e.start_ns = a.start_ns;
    e.end_ns = a.end_ns;
    e.thread_id = parent.thread_id;
    e.device_type = a.device_type;
    e.device_index = a.device_index;
    e.id = static_cast<int64_t>(out.size());
    e.parent_id = op->second;
    out.push_back(std::move(e));
  }
}

}  // namespace

uint64_t current_generation() { return g_generation.load(std::memory_order_acquire); }

StackCapture stack_capture() { return g_stack_capture.load(std::memory_order_acquire); }

void set_stack_capture(StackCapture capture) { g_stack_capture.store(capture, std::memory_order_release); }

bool is_enabled() { return profiling_on(); }

void start(const ProfilerConfig& config) {
  std::lock_guard lock(g_session_mutex);
  if (profiling_on()) {
    throw_error(ErrorKind::Runtime,
                "profiler: a profiling session is already running; only one profiler can be active at a time");
  }
  // Every buffer's old events are now stale (Note [Profiler generations]).
  g_session_generation = g_generation.fetch_add(1, std::memory_order_acq_rel) + 1;
  uint32_t flags = kRecordOps;
  if (config.record_shapes) flags |= kRecordShapes;
  if (config.profile_memory) flags |= kRecordMemory;
  if (config.with_stack) flags |= kRecordStack;
  g_profiling_flags.store(flags, std::memory_order_release);
  start_device_timers();
}

std::vector<ProfilerEvent> stop() {
  std::lock_guard lock(g_session_mutex);
  if (!profiling_on()) throw_error(ErrorKind::Runtime, "profiler: stop() without a running profiling session");
  g_profiling_flags.store(0, std::memory_order_release);
  // What a thread still records now goes to a generation no session reads.
  g_generation.fetch_add(1, std::memory_order_acq_rel);
  std::vector<DeviceActivity> activities = stop_device_timers();
  std::vector<ProfilerEvent> events;
  std::unordered_map<uint64_t, int64_t> ops;
  for (const std::shared_ptr<ThreadBuffer>& b : all_thread_buffers()) {
    std::lock_guard buffer_lock(b->mutex);
    if (b->generation != g_session_generation) continue;
    collect(*b, events, ops);
    b->sync(0);  // drop the events now rather than at the thread's next record
  }
  add_activities(activities, ops, events);
  return events;
}

}  // namespace ember::profiler
