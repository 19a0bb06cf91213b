#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "ember/device.h"

namespace ember {

class Tensor;

namespace plugin {
struct StreamState;
struct EventState;
}  // namespace plugin

// Note [Streams]
// A stream is an in-order queue of work on one device, as in CUDA. Every
// kernel and copy runs on the *current stream* of its device, a setting per
// thread and per device (default: the device's default stream); work on two
// streams may overlap and is ordered only through events (wait_event,
// wait_stream). A plugin without stream slots has one in-order stream:
// every Stream on its devices is the default stream, and events on them are
// complete as soon as they are recorded. The caching allocator keeps each
// block on the stream it was allocated on (Note [Stream-ordered blocks]).
class Stream {
 public:
  // A new stream on `device` (the default stream where the plugin has no
  // stream slots). Throws naming the device when it does not exist.
  static Stream create(Device device);
  // The stream the plugin calls NULL, on which work runs unless told otherwise.
  static Stream default_stream(Device device);

  Device device() const { return device_; }
  // 0 for the default stream; unique among the streams of the process.
  uint64_t id() const;
  // The plugin's ember_stream_t (NULL for the default stream).
  void* native_handle() const;

  // Waits for all work queued on the stream so far.
  void synchronize() const;
  // True when all work queued so far is done. The ABI has no non-blocking
  // question for this, so on a device with streams it waits, then answers.
  bool query() const;
  // Work queued on this stream from now on waits for `other`'s work so far.
  // Throws naming both devices when they differ.
  void wait_stream(const Stream& other) const;

  friend bool operator==(const Stream& a, const Stream& b) { return a.device_ == b.device_ && a.id() == b.id(); }
  friend bool operator!=(const Stream& a, const Stream& b) { return !(a == b); }

  const std::shared_ptr<const plugin::StreamState>& state() const { return state_; }

 private:
  friend Stream current_stream(Device device);
  Stream(Device device, std::shared_ptr<const plugin::StreamState> state) : device_(device), state_(std::move(state)) {}
  Device device_;
  std::shared_ptr<const plugin::StreamState> state_;  // null: the default stream
};

// The current stream of `device` on this thread.
Stream current_stream(Device device);
// Makes `stream` the current stream of its device on this thread.
void set_current_stream(const Stream& stream);
// Waits for all work on every stream of `device`.
void synchronize_device(Device device);

// Sets a stream as current for the guard's lifetime and restores the one it
// replaced (torch.cuda.stream as a C++ scope).
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};

// A marker in a stream's work: record() places it, wait() makes another
// stream wait for it, synchronize() makes the host wait. An event belongs to
// the device of the first stream it is recorded on.
class Event {
 public:
  explicit Event(bool enable_timing = false);

  // Records the event on `stream`: it completes when the stream's work so far
  // has. Throws naming both devices when the event belongs to another device.
  void record(const Stream& stream);
  // Work queued on `stream` from now on waits for the event (no wait when the
  // event was never recorded, as in CUDA).
  void wait(const Stream& stream) const;
  void synchronize() const;
  // True when the event has completed or was never recorded (waits, like
  // Stream::query).
  bool query() const;
  // Milliseconds between this event and `end`, both recorded with timing
  // enabled (Note [Event timing]).
  double elapsed_time(const Event& end) const;

  bool enable_timing() const;
  // The device of the first record; empty before it.
  std::optional<Device> device() const;

 private:
  std::shared_ptr<plugin::EventState> state_;
};

// Tells the caching allocator that `stream` uses the memory of `tensor`: when
// the tensor's storage dies, its block is not reused until the work queued on
// `stream` so far is done (torch.Tensor.record_stream). Throws naming both
// devices when the stream is on another device than the tensor.
void record_stream(const Tensor& tensor, const Stream& stream);

}  // namespace ember
