#include <chrono>
#include <optional>
#include <string>

#include "core/logging.h"
#include "ember/error.h"
#include "ember/stream.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/status.h"
#include "plugin/stream_state.h"

namespace ember {

namespace plugin {

PluginEvent::PluginEvent(DeviceBackend& backend, int32_t device) : backend_(backend), device_(device) {
  throw_if_error(call_device(backend_, EMBER_DEVICE_STREAM_THREAD_SAFE,
                             [&] { return backend_.api->event_create(device_, &handle_); }),
                 "creating an event on " + backend_.device_name(device_) + " (plugin '" + backend_.plugin_name + "')");
}

PluginEvent::~PluginEvent() {
  ember_status* status = call_device(backend_, EMBER_DEVICE_STREAM_THREAD_SAFE,
                                     [&] { return backend_.api->event_destroy(device_, handle_); });
  if (status != nullptr) {
    log().warn("plugin '{}' failed to destroy an event of {}: {}", backend_.plugin_name, backend_.device_name(device_),
               status->message);
    delete status;
  }
}

void PluginEvent::record(ember_stream_t stream) {
  throw_if_error(call_device(backend_, EMBER_DEVICE_STREAM_THREAD_SAFE,
                             [&] { return backend_.api->event_record(device_, handle_, stream); }),
                 "recording an event on " + backend_.device_name(device_));
}

void PluginEvent::wait(ember_stream_t stream) {
  throw_if_error(call_device(backend_, EMBER_DEVICE_STREAM_THREAD_SAFE,
                             [&] { return backend_.api->event_wait(device_, handle_, stream); }),
                 "waiting for an event on " + backend_.device_name(device_));
}

void PluginEvent::synchronize() {
  throw_if_error(call_device(backend_, EMBER_DEVICE_STREAM_THREAD_SAFE,
                             [&] { return backend_.api->event_synchronize(device_, handle_); }),
                 "synchronizing an event on " + backend_.device_name(device_));
}

// Note [Event timing]
// The ABI has no device timestamps yet (EMBER_EXTENSION_PROFILING is
// reserved), so a timing event takes the host clock when it completes:
// record() waits for the event, then reads the clock. elapsed_time() is then
// the host time between two completions, which matches the device time of
// the work between them when nothing else runs on the stream; the price is
// that recording a timing event waits for its stream.
struct EventState {
  bool enable_timing = false;
  std::optional<Device> device;
  DeviceBackend* backend = nullptr;    // set by the first record; null on meta
  std::unique_ptr<PluginEvent> event;  // null where the plugin has no events
  bool recorded = false;
  std::chrono::steady_clock::time_point completed_at;
};

}  // namespace plugin

Event::Event(bool enable_timing) : state_(std::make_shared<plugin::EventState>()) {
  state_->enable_timing = enable_timing;
}

bool Event::enable_timing() const { return state_->enable_timing; }

std::optional<Device> Event::device() const { return state_->device; }

void Event::record(const Stream& stream) {
  plugin::EventState& s = *state_;
  if (s.device && *s.device != stream.device()) {
    throw_error(ErrorKind::Runtime, "Event.record: the event belongs to " + s.device->str() +
                                        ", but the stream is on " + stream.device().str());
  }
  if (!s.device) {
    s.backend = stream.device().is_meta() ? nullptr : &plugin::backend_for(stream.device());
    if (s.backend != nullptr && plugin::has_events(*s.backend)) {
      s.event = std::make_unique<plugin::PluginEvent>(*s.backend, stream.device().index);
    }
    s.device = stream.device();
  }
  ember_stream_t handle = static_cast<ember_stream_t>(stream.native_handle());
  if (s.event) {
    s.event->record(handle);
  } else if (s.backend != nullptr && plugin::has_streams(*s.backend)) {
    // Streams but no events: the event completes at record, so wait for its work here.
    plugin::synchronize_stream(*s.backend, stream.device().index, handle);
  }
  s.recorded = true;
  if (s.enable_timing) {
    synchronize();
    s.completed_at = std::chrono::steady_clock::now();
  }
}

void Event::wait(const Stream& stream) const {
  const plugin::EventState& s = *state_;
  if (!s.recorded) return;
  if (*s.device != stream.device()) {
    throw_error(ErrorKind::Runtime, "Event.wait: the event belongs to " + s.device->str() + ", but the stream is on " +
                                        stream.device().str());
  }
  if (s.event) s.event->wait(static_cast<ember_stream_t>(stream.native_handle()));
}

void Event::synchronize() const {
  if (state_->recorded && state_->event) state_->event->synchronize();
}

bool Event::query() const {
  synchronize();
  return true;
}

double Event::elapsed_time(const Event& end) const {
  const plugin::EventState& a = *state_;
  const plugin::EventState& b = *end.state_;
  if (!a.enable_timing || !b.enable_timing) {
    throw_error(ErrorKind::Runtime, "Event.elapsed_time: both events must be created with enable_timing=True");
  }
  if (!a.recorded || !b.recorded) {
    throw_error(ErrorKind::Runtime, "Event.elapsed_time: both events must be recorded first");
  }
  if (*a.device != *b.device) {
    throw_error(ErrorKind::Runtime,
                "Event.elapsed_time: the events belong to " + a.device->str() + " and " + b.device->str());
  }
  return std::chrono::duration<double, std::milli>(b.completed_at - a.completed_at).count();
}

}  // namespace ember
