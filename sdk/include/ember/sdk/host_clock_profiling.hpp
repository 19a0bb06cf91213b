// host_clock_profiling.hpp -- `host_clock_profiling()`: the profiling
// extension (ABI 1.5) of a device whose kernels are done when their call
// returns (a CPU backend). Each kernel call is one activity, timed by the
// host's steady clock around it, so a profile shows the kernel's own time
// apart from the core's work around it. Hang the record on
// ember_plugin.extension. Host code only.
#ifndef EMBER_SDK_HOST_CLOCK_PROFILING_HPP_
#define EMBER_SDK_HOST_CLOCK_PROFILING_HPP_

#include <ember/ember_plugin.h>

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include <ember/sdk/profiling.hpp>

namespace ember::sdk {
namespace host_clock_detail {

struct Session {
  std::atomic<bool> on{false};
  std::mutex mutex;
  std::vector<ember_kernel_activity> done;  // with mutex
};

inline Session& session() {
  static Session s;
  return s;
}

// The calls begun on this thread and not ended: (correlation id, start).
inline std::vector<std::pair<uint64_t, int64_t>>& open_calls() {
  thread_local std::vector<std::pair<uint64_t, int64_t>> open;
  return open;
}

inline void start() {
  Session& s = session();
  std::lock_guard lock(s.mutex);
  s.done.clear();
  s.on.store(true, std::memory_order_release);
}

inline void kernel_begin(int32_t, ember_stream_t, uint64_t correlation_id) {
  if (!session().on.load(std::memory_order_acquire)) return;
  open_calls().emplace_back(correlation_id, steady_now_ns());
}

inline void kernel_end(int32_t device_index, ember_stream_t, uint64_t correlation_id) {
  const int64_t end = steady_now_ns();
  auto& open = open_calls();
  for (auto it = open.rbegin(); it != open.rend(); ++it) {
    if (it->first != correlation_id) continue;
    const int64_t begin = it->second;
    open.erase(std::next(it).base());
    Session& s = session();
    std::lock_guard lock(s.mutex);
    // A call that ends after stop() belongs to no session.
    if (!s.on.load(std::memory_order_acquire)) return;
    s.done.push_back(kernel_activity(correlation_id, device_index, nullptr, begin, end));
    return;
  }
}

inline void stop(ember_activity_sink sink, void* context) {
  Session& s = session();
  std::vector<ember_kernel_activity> done;
  {
    std::lock_guard lock(s.mutex);
    s.on.store(false, std::memory_order_release);
    done.swap(s.done);
  }
  for (const ember_kernel_activity& a : done) sink(context, &a);
}

}  // namespace host_clock_detail

inline const ember_profiling_extension& host_clock_profiling() {
  return profiling_extension<host_clock_detail::start, host_clock_detail::kernel_begin, host_clock_detail::kernel_end,
                             host_clock_detail::stop>();
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_HOST_CLOCK_PROFILING_HPP_
