#include "profiling.h"

#include <mutex>
#include <utility>
#include <vector>

#include <ember/ember_plugin.hpp>
#include <ember/sdk/profiling.hpp>

#include "devices.h"

namespace ember::xpu {
namespace {

struct TimedCommand {
  cl_event event;
  uint64_t correlation_id;
  int32_t device;
  std::string name;
};

struct Session {
  std::mutex mutex;
  bool on = false;
  // Per device, host steady-clock ns minus device ns, measured at start.
  std::vector<int64_t> clock_offsets;
  std::vector<TimedCommand> commands;
};

Session& session() {
  static Session* s = new Session;  // never destroyed: events outlive static destruction
  return *s;
}

// The timed call this thread is in: its correlation id (0 outside one).
struct TimedCall {
  uint64_t correlation_id = 0;
  int32_t device = 0;
};
thread_local TimedCall t_call;

cl_ulong profiling_time(cl_event event, cl_profiling_info what) {
  cl_ulong value = 0;
  check_cl(clGetEventProfilingInfo(event, what, sizeof value, &value, nullptr), "clGetEventProfilingInfo");
  return value;
}

// A marker that has just completed ends at device time END, read back at
// host time `after`: their difference is the offset, late by the wake-up
// of clFinish (microseconds).
int64_t clock_offset(const Device& device) {
  cl_event marker = nullptr;
  check_cl(clEnqueueMarkerWithWaitList(device.default_queue, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
  const cl_int finished = clFinish(device.default_queue);
  const int64_t after = sdk::steady_now_ns();
  if (finished != CL_SUCCESS) {
    clReleaseEvent(marker);
    check_cl(finished, "clFinish");
  }
  const cl_ulong end = profiling_time(marker, CL_PROFILING_COMMAND_END);
  clReleaseEvent(marker);
  return after - static_cast<int64_t>(end);
}

void release_commands(std::vector<TimedCommand>& commands) {
  for (const TimedCommand& c : commands) clReleaseEvent(c.event);
  commands.clear();
}

void start() {
  Devices& devices = Devices::instance();
  std::vector<int64_t> offsets;
  for (int32_t d = 0; d < devices.count(); ++d) offsets.push_back(clock_offset(devices.at(d)));
  Session& s = session();
  std::lock_guard lock(s.mutex);
  release_commands(s.commands);
  s.clock_offsets = std::move(offsets);
  s.on = true;
}

void kernel_begin(int32_t device_index, ember_stream_t, uint64_t correlation_id) {
  t_call = {correlation_id, device_index};
}

void kernel_end(int32_t, ember_stream_t, uint64_t) { t_call = {}; }

void stop(ember_activity_sink sink, void* context) {
  Session& s = session();
  std::vector<TimedCommand> commands;
  std::vector<int64_t> offsets;
  {
    std::lock_guard lock(s.mutex);
    s.on = false;
    commands.swap(s.commands);
    offsets = s.clock_offsets;
  }
  std::string failure;
  for (const TimedCommand& c : commands) {
    // A command that failed on the device has no times; the others still count.
    if (clWaitForEvents(1, &c.event) != CL_SUCCESS) continue;
    cl_ulong begin = 0;
    cl_ulong end = 0;
    if (clGetEventProfilingInfo(c.event, CL_PROFILING_COMMAND_START, sizeof begin, &begin, nullptr) != CL_SUCCESS ||
        clGetEventProfilingInfo(c.event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) != CL_SUCCESS) {
      failure = "clGetEventProfilingInfo failed for kernel '" + c.name + "'";
      continue;
    }
    const int64_t offset = static_cast<size_t>(c.device) < offsets.size() ? offsets[static_cast<size_t>(c.device)] : 0;
    const ember_kernel_activity a = sdk::kernel_activity(c.correlation_id, c.device, c.name.c_str(),
                                                         static_cast<int64_t>(begin) + offset,
                                                         static_cast<int64_t>(end) + offset);
    sink(context, &a);
  }
  release_commands(commands);
  if (!failure.empty()) sdk::fail(EMBER_STATUS_INTERNAL, "xpu: " + failure);
}

}  // namespace

const ember_profiling_extension& profiling_extension() {
  return sdk::profiling_extension<start, kernel_begin, kernel_end, stop>();
}

CommandTiming::~CommandTiming() {
  if (event_ != nullptr) clReleaseEvent(event_);  // enqueued, but never kept: an error came first
}

cl_event* CommandTiming::event() { return t_call.correlation_id == 0 ? nullptr : &event_; }

void CommandTiming::keep(const std::string& name) {
  if (event_ == nullptr) return;
  Session& s = session();
  std::lock_guard lock(s.mutex);
  if (!s.on) return;  // the session ended while the call ran; the destructor releases it
  s.commands.push_back({std::exchange(event_, nullptr), t_call.correlation_id, t_call.device, name});
}

}  // namespace ember::xpu
