#include "plugin/device_registry.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ember/error.h"
#include "plugin/device_call.h"
#include "plugin/loader.h"
#include "plugin/status.h"
#include "plugin/stream_state.h"

namespace ember::plugin {

namespace {

void check_index(const DeviceBackend& backend, int32_t index) {
  if (backend.device_count == 0) {
    // The plugin logs why at info level (no driver, no GPU, no platform).
    throw Error(ErrorKind::Runtime, "device " + backend.device_name(index) +
                                        " does not exist: the plugin found no device on this machine "
                                        "(EMBER_LOG_LEVEL=info shows why)");
  }
  if (index < 0 || index >= backend.device_count) {
    throw Error(ErrorKind::Runtime, "device " + backend.device_name(index) + " does not exist (" +
                                        std::to_string(backend.device_count) + " devices)");
  }
}

}  // namespace

CachingAllocator& DeviceBackend::allocator(int32_t index) {
  check_index(*this, index);
  return *allocators[index];
}

DeviceRegistry& DeviceRegistry::get() {
  // Never destroyed: tensors in static objects may outlive main(), and their
  // storage returns memory through a backend's allocator.
  static auto* registry = new DeviceRegistry();
  return *registry;
}

DeviceRegistry::DeviceRegistry() : names_{"cpu", "meta"} {}

DeviceTypeId DeviceRegistry::find_type(std::string_view name) const {
  std::lock_guard lock(mutex_);
  auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? DeviceTypeId{-1} : static_cast<DeviceTypeId>(it - names_.begin());
}

std::string DeviceRegistry::type_name(DeviceTypeId type) const {
  std::lock_guard lock(mutex_);
  if (type < 0 || static_cast<size_t>(type) >= names_.size()) {
    return "<unknown device type " + std::to_string(type) + ">";
  }
  return names_[type];
}

DeviceTypeId DeviceRegistry::claim(std::unique_ptr<DeviceBackend> backend) {
  std::lock_guard lock(mutex_);
  auto it = std::find(names_.begin(), names_.end(), backend->type_name);
  auto type = static_cast<DeviceTypeId>(it - names_.begin());
  if (type == kMetaDeviceType) {
    throw Error(ErrorKind::Value, "device type 'meta' is built in and cannot be provided by a plugin");
  }
  if (it != names_.end()) {
    if (const DeviceBackend* holder = backends_[type].load(std::memory_order_acquire)) {
      throw Error(ErrorKind::Runtime, "device type '" + backend->type_name + "' is already provided by plugin '" +
                                          holder->plugin_name + "'");
    }
  } else if (names_.size() >= static_cast<size_t>(kMaxDeviceTypes)) {
    throw Error(ErrorKind::Runtime, "cannot add device type '" + backend->type_name + "': all " +
                                        std::to_string(kMaxDeviceTypes) + " device type slots are taken");
  } else {
    names_.push_back(backend->type_name);
  }
  backend->type = type;
  backends_[type].store(backend.get(), std::memory_order_release);
  owned_.push_back(std::move(backend));
  return type;
}

std::vector<DeviceBackend*> DeviceRegistry::all() const {
  std::lock_guard lock(mutex_);
  std::vector<DeviceBackend*> result;
  for (const auto& slot : backends_) {
    if (DeviceBackend* backend = slot.load(std::memory_order_acquire)) result.push_back(backend);
  }
  return result;
}

namespace {

std::string describe_plugins() {
  std::string loaded;
  std::string quarantined;
  for (const PluginInfo& info : loaded_plugins()) {
    std::string& list = info.loaded ? loaded : quarantined;
    if (!list.empty()) list += ", ";
    list += info.loaded ? info.name : info.name + " (" + info.error + ")";
  }
  return "loaded plugins: " + (loaded.empty() ? "none" : loaded) +
         (quarantined.empty() ? "" : "; quarantined: " + quarantined);
}

}  // namespace

DeviceBackend& backend_for(Device device) {
  if (device.type == kMetaDeviceType) {
    throw Error(ErrorKind::Runtime, "the meta device has no plugin backend");
  }
  if (device.type < 0 || device.type >= kMaxDeviceTypes) {
    throw Error(ErrorKind::Value, "invalid device type id " + std::to_string(device.type));
  }
  auto& registry = DeviceRegistry::get();
  DeviceBackend* backend = registry.backend(device.type);
  if (backend == nullptr) {
    discover_plugins();
    backend = registry.backend(device.type);
  }
  if (backend == nullptr) {
    throw Error(ErrorKind::Runtime, "no plugin provides device type '" + registry.type_name(device.type) + "' (" +
                                        describe_plugins() + ")");
  }
  check_index(*backend, device.index);
  return *backend;
}

namespace {

void release_block(void* context, void* data) noexcept { static_cast<CachingAllocator*>(context)->release(data); }

void copy_on(DeviceBackend& backend, ember_copy_kind kind, int32_t src_device, const void* src, size_t src_offset,
             int32_t dst_device, void* dst, size_t dst_offset, size_t nbytes) {
  ember_copy_args args{};
  args.struct_size = sizeof(args);
  args.kind = kind;
  args.src_device = src_device;
  args.dst_device = dst_device;
  args.src = src;
  args.src_offset = src_offset;
  args.dst = dst;
  args.dst_offset = dst_offset;
  args.num_bytes = nbytes;
  // The current stream of the device that runs the copy (its source within one device type).
  args.stream = handle_of(
      current_stream_state(Device(backend.type, kind == EMBER_COPY_HOST_TO_DEVICE ? dst_device : src_device)));
  std::string route = kind == EMBER_COPY_HOST_TO_DEVICE ? "host to " + backend.device_name(dst_device)
                      : kind == EMBER_COPY_DEVICE_TO_HOST
                          ? backend.device_name(src_device) + " to host"
                          : backend.device_name(src_device) + " to " + backend.device_name(dst_device);
  throw_if_error(call_device(backend, EMBER_DEVICE_COPY_THREAD_SAFE, [&] { return backend.api->copy(&args); }),
                 "copying " + std::to_string(nbytes) + " bytes from " + route);
}

void check_not_meta(Device device) {
  if (device.is_meta()) throw Error(ErrorKind::Runtime, "cannot copy data of a meta tensor");
}

}  // namespace

std::shared_ptr<Storage> allocate_storage(Device device, size_t nbytes) {
  if (device.is_meta()) return std::make_shared<Storage>(nullptr, nbytes, device, nullptr, nullptr);
  CachingAllocator& allocator = backend_for(device).allocator(device.index);
  void* data = allocator.allocate(nbytes, current_stream_state(device));
  try {
    return std::make_shared<Storage>(data, nbytes, device, release_block, &allocator);
  } catch (...) {
    allocator.release(data);
    throw;
  }
}

// Note [Copies between devices]
// The cpu device's memory is host memory, so a copy between cpu and another
// device is that device's host copy. Copies within one device type are the
// plugin's device-to-device copy (it may span two ordinals). Two different
// plugin devices know nothing of each other: their copy stages through a
// host buffer.
void copy_bytes(Device dst_device, void* dst, Device src_device, const void* src, size_t nbytes, size_t dst_offset,
                size_t src_offset) {
  check_not_meta(dst_device);
  check_not_meta(src_device);
  if (nbytes == 0) return;
  if (dst_device.type == src_device.type) {
    copy_on(backend_for(src_device), EMBER_COPY_DEVICE_TO_DEVICE, src_device.index, src, src_offset, dst_device.index,
            dst, dst_offset, nbytes);
  } else if (src_device.is_cpu()) {
    copy_from_host(dst_device, dst, static_cast<const char*>(src) + src_offset, nbytes, dst_offset);
  } else if (dst_device.is_cpu()) {
    copy_to_host(static_cast<char*>(dst) + dst_offset, src_device, src, nbytes, src_offset);
  } else {
    std::vector<std::byte> staging(nbytes);
    copy_to_host(staging.data(), src_device, src, nbytes, src_offset);
    copy_from_host(dst_device, dst, staging.data(), nbytes, dst_offset);
  }
}

void copy_from_host(Device dst_device, void* dst, const void* host_src, size_t nbytes, size_t dst_offset) {
  check_not_meta(dst_device);
  if (nbytes == 0) return;
  copy_on(backend_for(dst_device), EMBER_COPY_HOST_TO_DEVICE, 0, host_src, 0, dst_device.index, dst, dst_offset,
          nbytes);
}

void copy_to_host(void* host_dst, Device src_device, const void* src, size_t nbytes, size_t src_offset) {
  check_not_meta(src_device);
  if (nbytes == 0) return;
  copy_on(backend_for(src_device), EMBER_COPY_DEVICE_TO_HOST, src_device.index, src, src_offset, 0, host_dst, 0,
          nbytes);
}

}  // namespace ember::plugin
