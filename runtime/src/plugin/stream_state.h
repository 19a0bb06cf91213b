#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include <ember/ember_plugin.h>

#include "ember/device.h"

namespace ember::plugin {

struct DeviceBackend;

// A stream the core made through the plugin's stream_create. It dies when the
// last Stream, current-stream setting or allocator block naming it does:
// then it waits for its work, returns the handle and hands the blocks cached
// on it to the default stream (Note [Stream-ordered blocks]).
struct StreamState {
  DeviceBackend* backend = nullptr;
  Device device;
  ember_stream_t handle = nullptr;
  uint64_t id = 0;
  ~StreamState();
};

// Whether any thread ever set a current stream. Read on every kernel call
// and allocation: one relaxed load of a global, so a program that never
// sets a stream pays no thread-local lookup. It is no initial-exec
// thread_local on purpose: one such variable puts the library's whole TLS
// block in glibc's static TLS space, the few hundred bytes a process keeps
// for libraries loaded later, and a vendor runtime that needs that space
// (HIP's libamdhip64) could then not be loaded by a plugin opened after
// the core, as in Python (Note [No static TLS]).
inline constinit std::atomic<bool> g_streams_ever_set{false};
inline const std::shared_ptr<const StreamState> kDefaultStream;
const std::shared_ptr<const StreamState>& current_stream_state_of_thread(Device device) noexcept;

// The current stream of `device` on this thread: null for the default stream.
inline const std::shared_ptr<const StreamState>& current_stream_state(Device device) noexcept {
  return g_streams_ever_set.load(std::memory_order_relaxed) ? current_stream_state_of_thread(device) : kDefaultStream;
}
inline ember_stream_t handle_of(const std::shared_ptr<const StreamState>& state) {
  return state ? state->handle : nullptr;
}
inline uint64_t id_of(const std::shared_ptr<const StreamState>& state) { return state ? state->id : 0; }

// Whether the plugin fills the optional stream and event slots.
bool has_streams(const DeviceBackend& backend);
bool has_events(const DeviceBackend& backend);

// Waits for `stream` on `device` (NULL: the default stream); throws naming
// the device and plugin.
void synchronize_stream(DeviceBackend& backend, int32_t device, ember_stream_t stream);

// An event handle of the plugin, destroyed with the object.
class PluginEvent {
 public:
  PluginEvent(DeviceBackend& backend, int32_t device);  // throws
  ~PluginEvent();
  PluginEvent(const PluginEvent&) = delete;
  PluginEvent& operator=(const PluginEvent&) = delete;
  void record(ember_stream_t stream);
  void wait(ember_stream_t stream);
  void synchronize();

 private:
  DeviceBackend& backend_;
  int32_t device_;
  ember_event_t handle_ = nullptr;
};

}  // namespace ember::plugin
