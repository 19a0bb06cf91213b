#include "plugin/kernel_timing.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "core/logging.h"
#include "ember/error.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/extension_chain.h"
#include "profiler/device_timers.h"
#include "profiler/profiler_state.h"

namespace ember::plugin {

// Note [Device activities]
// A device that runs kernels asynchronously knows when they ran; the host
// only knows when it queued them. A plugin that has the profiling extension
// is started with the session; the core brackets each kernel call it makes
// while recording with kernel_begin and kernel_end, passing the id it gave
// the op's range, and the plugin times the device work queued in between
// (CUDA events, OpenCL profiling events, the CPU plugin's clock). When the
// session stops, the plugin waits for that work and hands back activities
// in the host's steady clock; each becomes a Device event whose parent is
// its op, which is what key_averages' device columns and the trace's device
// tracks read. An activity for an op the session does not hold (a kernel
// begun before start) is dropped; a kernel_end that arrives after stop is
// the plugin's to ignore. A timer's failure is logged once per call and
// costs the session its device times, never an op.
namespace {

void log_failure(const DeviceBackend& backend, const char* what, ember_status* status) {
  if (status == nullptr) return;
  log().warn("profiler: {} of plugin '{}' failed: {}", what, backend.plugin_name, status->message);
  delete status;
}

class PluginTimer final : public profiler::DeviceTimer {
 public:
  explicit PluginTimer(const DeviceBackend& backend) : backend_(backend) {}

  void start() noexcept override {
    log_failure(backend_, "start", call_plugin([&] { return backend_.profiling->start(); }));
  }

  void stop(std::vector<profiler::DeviceActivity>& out) noexcept override {
    Sink sink{&out, backend_.type};
    log_failure(backend_, "stop", call_plugin([&] { return backend_.profiling->stop(&Sink::take, &sink); }));
  }

 private:
  struct Sink {
    std::vector<profiler::DeviceActivity>* out;
    int32_t device_type;

    static void take(void* context, const ember_kernel_activity* a) {
      auto* sink = static_cast<Sink*>(context);
      if (a == nullptr || a->struct_size < EMBER_STRUCT_SIZE(ember_kernel_activity, end_ns)) return;
      profiler::DeviceActivity& d = sink->out->emplace_back();
      d.correlation_id = a->correlation_id;
      d.device_type = sink->device_type;
      d.device_index = a->device_index;
      if (a->name != nullptr) d.name = a->name;
      d.start_ns = a->start_ns;
      d.end_ns = std::max(a->start_ns, a->end_ns);
    }
  };

  const DeviceBackend& backend_;
};

}  // namespace

std::optional<ember_profiling_extension> find_profiling(const ember_plugin& plugin, uint32_t negotiated_minor) {
  const ember_extension* e = find_extension(plugin.extension, EMBER_EXTENSION_PROFILING, negotiated_minor, 5,
                                            EMBER_STRUCT_SIZE(ember_profiling_extension, stop), "profiling");
  if (e == nullptr) return std::nullopt;
  ember_profiling_extension record{};
  std::memcpy(&record, e, std::min(e->struct_size, sizeof(record)));
  record.header.struct_size = sizeof(record);
  record.header.next = nullptr;
  if (record.start == nullptr || record.kernel_begin == nullptr || record.kernel_end == nullptr ||
      record.stop == nullptr) {
    throw_error(ErrorKind::Runtime, "profiling extension leaves a required function NULL");
  }
  return record;
}

void add_device_timer(const DeviceBackend& backend) {
  profiler::add_device_timer(std::make_shared<PluginTimer>(backend), backend.type);
}

uint64_t kernel_correlation(const DeviceBackend& backend) {
  if (!backend.profiling || !profiler::profiling_on()) return 0;
  return profiler::correlate_open_op();
}

KernelTiming::KernelTiming(const DeviceBackend& backend, Device device, ember_stream_t stream, uint64_t correlation)
    : correlation_(correlation) {
  if (correlation_ == 0) return;
  backend_ = &backend;
  device_index_ = device.index;
  stream_ = stream;
  ember_status* status = call_plugin([&] { return backend.profiling->kernel_begin(device.index, stream, correlation_); });
  if (status != nullptr) {
    log_failure(backend, "kernel_begin", status);
    return;
  }
  record_ = &*backend.profiling;
}

KernelTiming::~KernelTiming() {
  if (record_ == nullptr) return;
  log_failure(*backend_, "kernel_end",
              call_plugin([&] { return record_->kernel_end(device_index_, stream_, correlation_); }));
}

}  // namespace ember::plugin
