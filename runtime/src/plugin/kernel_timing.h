#pragma once
// A device plugin's profiling extension (ABI 1.5): the profiler's timer of
// its devices, and the bracket around each kernel call it times
// (Note [Device activities]).
#include <cstdint>
#include <optional>

#include <ember/ember_plugin.h>

#include "ember/device.h"

namespace ember::plugin {

struct DeviceBackend;

// The checked record on the plugin's chain, copied and cut off from the rest
// of the chain, or nothing when the plugin has none or the session's minor
// predates it. Throws the reason for quarantine when it is malformed.
std::optional<ember_profiling_extension> find_profiling(const ember_plugin& plugin, uint32_t negotiated_minor);

// Registers `backend`'s profiling record with the profiler; the backend
// lives as long as the process.
void add_device_timer(const DeviceBackend& backend);

// The id under which the device work of a kernel call on `backend` is
// timed for the op open on this thread; 0 when a session does not record or
// the backend has no timer.
uint64_t kernel_correlation(const DeviceBackend& backend);

// While alive, the device work a kernel call enqueues on this thread is
// timed under `correlation` (nothing when it is 0).
class KernelTiming {
 public:
  KernelTiming(const DeviceBackend& backend, Device device, ember_stream_t stream, uint64_t correlation);
  ~KernelTiming();
  KernelTiming(const KernelTiming&) = delete;
  KernelTiming& operator=(const KernelTiming&) = delete;

 private:
  const ember_profiling_extension* record_ = nullptr;  // null: not timing
  const DeviceBackend* backend_ = nullptr;
  int32_t device_index_ = 0;
  ember_stream_t stream_ = nullptr;
  uint64_t correlation_ = 0;
};

}  // namespace ember::plugin
