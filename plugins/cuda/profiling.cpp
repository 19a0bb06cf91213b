#include "profiling.h"

#include <mutex>
#include <vector>

#include <ember/ember_plugin.hpp>
#include <ember/sdk/profiling.hpp>

#include "devices.h"
#include "gpu_runtime.h"
#include "runtime_error.h"
#include "stream.h"

namespace ember::gpu {
namespace {

struct TimedCall {
  cudaEvent_t begin = nullptr;
  cudaEvent_t end = nullptr;
  uint64_t correlation_id = 0;
  int32_t device = 0;
};

// Per device: an event the session recorded at its start, and the host
// steady-clock time it completed at; the times of other events on the
// device are elapsed times from it.
struct Reference {
  cudaEvent_t event = nullptr;
  int64_t host_ns = 0;
};

struct Session {
  std::mutex mutex;
  bool on = false;
  std::vector<Reference> references;
  std::vector<TimedCall> calls;
};

Session& session() {
  static Session* s = new Session;  // never destroyed: the runtime may be gone at static destruction
  return *s;
}

// The call begun on this thread and not ended.
thread_local TimedCall t_open;

// A failed destroy leaves nothing to do.
void release_event(cudaEvent_t event) { (void)cudaEventDestroy(event); }

void destroy_events(std::vector<TimedCall>& calls, std::vector<Reference>& references) {
  for (const TimedCall& c : calls) {
    use_device(c.device);
    release_event(c.begin);
    release_event(c.end);
  }
  for (size_t d = 0; d < references.size(); ++d) {
    use_device(static_cast<int32_t>(d));
    release_event(references[d].event);
  }
  calls.clear();
  references.clear();
}

void start() {
  std::vector<Reference> references;
  for (int32_t d = 0; d < Devices::instance().count(); ++d) {
    use_device(d);
    Reference r;
    check(cudaEventCreate(&r.event), "cudaEventCreate");
    references.push_back(r);
    check(cudaEventRecord(r.event, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(r.event), "cudaEventSynchronize");
    references.back().host_ns = sdk::steady_now_ns();
  }
  Session& s = session();
  std::lock_guard lock(s.mutex);
  destroy_events(s.calls, s.references);
  s.references = std::move(references);
  s.on = true;
}

void kernel_begin(int32_t device, ember_stream_t stream, uint64_t correlation_id) {
  use_device(device);
  TimedCall call{nullptr, nullptr, correlation_id, device};
  check(cudaEventCreate(&call.begin), "cudaEventCreate");
  const cudaError_t recorded = cudaEventRecord(call.begin, stream_of(stream));
  if (recorded != cudaSuccess) release_event(call.begin);
  check(recorded, "cudaEventRecord");
  t_open = call;
}

void kernel_end(int32_t device, ember_stream_t stream, uint64_t correlation_id) {
  TimedCall call = t_open;
  t_open = {};
  if (call.begin == nullptr || call.correlation_id != correlation_id) return;
  use_device(device);
  cudaError_t error = cudaEventCreate(&call.end);
  if (error == cudaSuccess) error = cudaEventRecord(call.end, stream_of(stream));
  Session& s = session();
  std::lock_guard lock(s.mutex);
  if (error != cudaSuccess || !s.on) {
    release_event(call.begin);
    if (call.end != nullptr) release_event(call.end);
    check(error, "cudaEventRecord");
    return;  // the session ended while the call ran
  }
  s.calls.push_back(call);
}

void stop(ember_activity_sink sink, void* context) {
  Session& s = session();
  std::vector<TimedCall> calls;
  std::vector<Reference> references;
  {
    std::lock_guard lock(s.mutex);
    s.on = false;
    calls.swap(s.calls);
    references.swap(s.references);
  }
  for (const TimedCall& c : calls) {
    if (static_cast<size_t>(c.device) >= references.size()) continue;
    use_device(c.device);
    float begin_ms = 0;
    float end_ms = 0;
    if (cudaEventSynchronize(c.end) != cudaSuccess ||
        cudaEventElapsedTime(&begin_ms, references[c.device].event, c.begin) != cudaSuccess ||
        cudaEventElapsedTime(&end_ms, references[c.device].event, c.end) != cudaSuccess) {
      continue;  // a failed kernel has no times; the others still count
    }
    const int64_t origin = references[c.device].host_ns;
    const ember_kernel_activity a =
        sdk::kernel_activity(c.correlation_id, c.device, nullptr, origin + static_cast<int64_t>(begin_ms * 1e6),
                             origin + static_cast<int64_t>(end_ms * 1e6));
    sink(context, &a);
  }
  destroy_events(calls, references);
}

}  // namespace

const ember_profiling_extension& profiling_extension() {
  return sdk::profiling_extension<start, kernel_begin, kernel_end, stop>();
}

}  // namespace ember::gpu
