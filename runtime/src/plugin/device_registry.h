#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ember/ember_plugin.h>

#include "ember/device.h"
#include "ember/storage.h"
#include "plugin/caching_allocator.h"

namespace ember::plugin {

// A device type provided by a loaded plugin.
struct DeviceBackend {
  DeviceTypeId type = 0;
  std::string type_name;
  std::string plugin_name;
  const ember_device_api* api = nullptr;
  size_t api_size = 0;  // the plugin's struct_size: fields past it are absent
  int32_t device_count = 0;
  // Held around device functions the plugin did not declare thread-safe.
  // Recursive: a kernel run under it may call back into the host, whose
  // scratch allocation calls the plugin's allocator on the same thread
  // (Note [Serialised device calls]).
  std::recursive_mutex serial_lock;
  std::vector<std::unique_ptr<CachingAllocator>> allocators;  // one per device
  // The plugin's native handles (ABI 1.3), lent to collective engines.
  std::optional<ember_native_handles_extension> native_handles;
  // The plugin's device timer (ABI 1.5), read by the profiler.
  std::optional<ember_profiling_extension> profiling;
  // Set once a kernel of the plugin ran past the watchdog's timeout (Note
  // [Kernel watchdog]); `hung_reason` is written before and read after.
  std::atomic<bool> hung{false};
  std::string hung_reason;

  CachingAllocator& allocator(int32_t index);
  std::string device_name(int32_t index) const { return type_name + ":" + std::to_string(index); }
  bool has(size_t field_offset) const { return field_offset < api_size; }
};

// Note [Device type slots]
// Names map to small ids: cpu = 0 and meta = 1 always, others from 2 in the
// order plugins claim them. A backend pointer is published once and read
// without a lock.
class DeviceRegistry {
 public:
  static DeviceRegistry& get();

  // -1 when no plugin has claimed `name` (and it is not cpu or meta).
  DeviceTypeId find_type(std::string_view name) const;
  std::string type_name(DeviceTypeId type) const;
  // Binds a backend to `name`; throws if another plugin holds the name.
  DeviceTypeId claim(std::unique_ptr<DeviceBackend> backend);
  // nullptr when no plugin provides the type.
  DeviceBackend* backend(DeviceTypeId type) const { return backends_[type].load(std::memory_order_acquire); }
  std::vector<DeviceBackend*> all() const;

 private:
  DeviceRegistry();
  mutable std::mutex mutex_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<DeviceBackend>> owned_;
  std::array<std::atomic<DeviceBackend*>, kMaxDeviceTypes> backends_{};
};

// The backend of `device`, discovering plugins on first use; throws naming
// the device when no plugin provides it or the index is out of range.
DeviceBackend& backend_for(Device device);

// Memory for `nbytes` on `device` from its caching allocator (no memory for
// meta). The storage returns the block when it dies.
std::shared_ptr<Storage> allocate_storage(Device device, size_t nbytes);

// Byte copies between devices and the host. Copies between two different
// plugin devices go through a host buffer.
// Note [Device pointers are opaque]: a plugin's device pointer may be a
// handle rather than an address (the XPU plugin's are OpenCL cl_mem), so a
// device side is named by the pointer allocate() returned plus a byte
// offset, never by arithmetic on the pointer.
void copy_bytes(Device dst_device, void* dst, Device src_device, const void* src, size_t nbytes, size_t dst_offset = 0,
                size_t src_offset = 0);
void copy_from_host(Device dst_device, void* dst, const void* host_src, size_t nbytes, size_t dst_offset = 0);
void copy_to_host(void* host_dst, Device src_device, const void* src, size_t nbytes, size_t src_offset = 0);

}  // namespace ember::plugin
