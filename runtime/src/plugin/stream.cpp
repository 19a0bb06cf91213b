#include "ember/stream.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include "core/logging.h"
#include "ember/error.h"
#include "ember/tensor.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/status.h"
#include "plugin/stream_state.h"

namespace ember {

namespace plugin {

namespace {

std::atomic<uint64_t> g_next_stream_id{1};

// Streams each thread has made current, by device type and index; a missing
// or null entry is the default stream.
struct CurrentStreams {
  std::array<std::vector<std::shared_ptr<const StreamState>>, kMaxDeviceTypes> by_type;
};
thread_local CurrentStreams t_current;

}  // namespace

bool has_streams(const DeviceBackend& backend) {
  return backend.has(offsetof(ember_device_api, stream_synchronize)) && backend.api->stream_create != nullptr &&
         backend.api->stream_destroy != nullptr && backend.api->stream_synchronize != nullptr;
}

bool has_events(const DeviceBackend& backend) {
  return backend.has(offsetof(ember_device_api, event_synchronize)) && backend.api->event_create != nullptr &&
         backend.api->event_destroy != nullptr && backend.api->event_record != nullptr &&
         backend.api->event_wait != nullptr && backend.api->event_synchronize != nullptr;
}

void synchronize_stream(DeviceBackend& backend, int32_t device, ember_stream_t stream) {
  const bool per_stream = has_streams(backend);
  throw_if_error(
      call_device(backend, EMBER_DEVICE_STREAM_THREAD_SAFE,
                  [&] {
                    return per_stream ? backend.api->stream_synchronize(device, stream)
                                      : backend.api->synchronize(device);
                  }),
      "synchronizing a stream of " + backend.device_name(device) + " (plugin '" + backend.plugin_name + "')");
}

StreamState::~StreamState() {
  try {
    synchronize_stream(*backend, device.index, handle);
  } catch (const std::exception& e) {
    log().warn("{}", e.what());
  }
  backend->allocator(device.index).retire_stream(id);
  ember_status* status = call_device(*backend, EMBER_DEVICE_STREAM_THREAD_SAFE,
                                     [&] { return backend->api->stream_destroy(device.index, handle); });
  if (status != nullptr) {
    log().warn("plugin '{}' failed to destroy a stream of {}: {}", backend->plugin_name,
               backend->device_name(device.index), status->message);
    delete status;
  }
}

const std::shared_ptr<const StreamState>& current_stream_state_of_thread(Device device) noexcept {
  if (device.type < 0 || device.type >= kMaxDeviceTypes) return kDefaultStream;
  const auto& streams = t_current.by_type[device.type];
  if (device.index < 0 || static_cast<size_t>(device.index) >= streams.size()) return kDefaultStream;
  return streams[device.index];
}

}  // namespace plugin

namespace {

// The backend of a device that may hold streams; meta has none.
plugin::DeviceBackend* stream_backend(Device device) {
  return device.is_meta() ? nullptr : &plugin::backend_for(device);
}

void check_same_device(const char* what, Device expected, const char* other_name, Device other) {
  if (expected != other) {
    throw_error(ErrorKind::Runtime, std::string(what) + ": " + other_name + " is on " + other.str() +
                                        ", but the stream is on " + expected.str());
  }
}

}  // namespace

Stream Stream::create(Device device) {
  plugin::DeviceBackend* backend = stream_backend(device);
  if (backend == nullptr || !plugin::has_streams(*backend)) return default_stream(device);
  ember_stream_t handle = nullptr;
  plugin::throw_if_error(plugin::call_device(*backend, EMBER_DEVICE_STREAM_THREAD_SAFE,
                                             [&] { return backend->api->stream_create(device.index, &handle); }),
                         "creating a stream on " + device.str() + " (plugin '" + backend->plugin_name + "')");
  if (handle == nullptr) return default_stream(device);
  auto state = std::make_shared<plugin::StreamState>();
  state->backend = backend;
  state->device = device;
  state->handle = handle;
  state->id = plugin::g_next_stream_id.fetch_add(1, std::memory_order_relaxed);
  return Stream(device, std::move(state));
}

Stream Stream::default_stream(Device device) {
  stream_backend(device);  // the device must exist
  return Stream(device, nullptr);
}

uint64_t Stream::id() const { return plugin::id_of(state_); }

void* Stream::native_handle() const { return plugin::handle_of(state_); }

void Stream::synchronize() const {
  plugin::DeviceBackend* backend = stream_backend(device_);
  if (backend == nullptr) return;
  plugin::synchronize_stream(*backend, device_.index, plugin::handle_of(state_));
  backend->allocator(device_.index).stream_synchronized(id());
}

bool Stream::query() const {
  synchronize();
  return true;
}

void Stream::wait_stream(const Stream& other) const {
  check_same_device("wait_stream", device_, "the stream to wait for", other.device_);
  if (other.id() == id()) return;
  plugin::DeviceBackend* backend = stream_backend(device_);
  if (backend == nullptr) return;
  if (!plugin::has_events(*backend)) {
    other.synchronize();
    return;
  }
  plugin::PluginEvent event(*backend, device_.index);
  event.record(plugin::handle_of(other.state_));
  event.wait(plugin::handle_of(state_));
}

Stream current_stream(Device device) {
  const auto& state = plugin::current_stream_state(device);
  return state ? Stream(device, state) : Stream::default_stream(device);
}

void set_current_stream(const Stream& stream) {
  const Device device = stream.device();
  plugin::g_streams_ever_set.store(true, std::memory_order_relaxed);
  auto& streams = plugin::t_current.by_type[device.type];
  if (static_cast<size_t>(device.index) >= streams.size()) streams.resize(static_cast<size_t>(device.index) + 1);
  streams[device.index] = stream.state();
}

StreamGuard::StreamGuard(const Stream& stream) : previous_(current_stream(stream.device())) {
  set_current_stream(stream);
}

StreamGuard::~StreamGuard() { set_current_stream(previous_); }

void record_stream(const Tensor& tensor, const Stream& stream) {
  if (!tensor.defined()) throw_error(ErrorKind::Runtime, "record_stream: the tensor is undefined");
  check_same_device("record_stream", stream.device(), "the tensor", tensor.device());
  plugin::DeviceBackend* backend = stream_backend(stream.device());
  if (backend == nullptr) return;
  backend->allocator(stream.device().index).record_stream(tensor.impl()->storage()->data(), stream.state());
}

}  // namespace ember
