#include "profiler/device_timers.h"

#include <atomic>
#include <mutex>

#include "ember/device.h"
#include "ember/profiler.h"
#include "profiler/profiler_state.h"
#include "profiler/thread_buffer.h"

namespace ember::profiler {
namespace {

struct Timers {
  std::mutex mutex;
  bool running = false;  // a session is on
  std::vector<std::shared_ptr<DeviceTimer>> timers;
  std::vector<int32_t> device_types;
};

Timers& timers() {
  static Timers* t = new Timers;  // never destroyed: plugins outlive static destruction
  return *t;
}

std::atomic<uint64_t> g_next_correlation{1};

}  // namespace

void add_device_timer(std::shared_ptr<DeviceTimer> timer, int32_t device_type) {
  Timers& t = timers();
  std::lock_guard lock(t.mutex);
  if (t.running) timer->start();
  t.timers.push_back(std::move(timer));
  t.device_types.push_back(device_type);
}

std::vector<std::string> timed_device_types() {
  Timers& t = timers();
  std::lock_guard lock(t.mutex);
  std::vector<std::string> names;
  for (const int32_t type : t.device_types) names.push_back(Device(static_cast<DeviceTypeId>(type)).type_name());
  return names;
}

void start_device_timers() {
  Timers& t = timers();
  std::lock_guard lock(t.mutex);
  t.running = true;
  for (const auto& timer : t.timers) timer->start();
}

std::vector<DeviceActivity> stop_device_timers() {
  Timers& t = timers();
  std::lock_guard lock(t.mutex);
  t.running = false;
  std::vector<DeviceActivity> activities;
  for (const auto& timer : t.timers) timer->stop(activities);
  return activities;
}

uint64_t correlate_open_op() {
  if (!profiling_on()) return 0;
  ThreadBuffer& b = this_thread_buffer();
  std::lock_guard lock(b.mutex);
  if (b.generation != current_generation() || b.open < 0) return 0;
  RawEvent& e = b.events[static_cast<size_t>(b.open)];
  if (e.kind != EventKind::Op) return 0;
  if (e.correlation == 0) e.correlation = g_next_correlation.fetch_add(1, std::memory_order_relaxed);
  return e.correlation;
}

}  // namespace ember::profiler
