#pragma once

#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

#include <ember/ember_plugin.h>

#include "plugin/device_registry.h"
#include "plugin/status.h"

namespace ember::plugin {

// Note [Serialised device calls]
// A plugin declares in ember_device_api.thread_safety which groups of device
// functions may run concurrently (allocator, copy, streams). Any other call
// runs under the backend's serial_lock, the same lock the dispatcher takes
// for kernels without EMBER_KERNEL_THREAD_SAFE, so a plugin that declares
// nothing never sees two of its functions at once from two threads. The
// lock is recursive because one thread may re-enter: a serialised kernel
// that asks the host for scratch memory reaches the plugin's allocator
// while the kernel still holds the lock. Device count and properties belong
// to no group and are always serialised.
inline constexpr uint32_t kAlwaysSerialised = 0;

// Calls `fn`, which calls into a plugin and returns its ember_status*. A C++
// exception that escapes a plugin becomes an internal-error status: nothing
// a plugin does may unwind through the core.
template <typename Fn>
ember_status* call_plugin(Fn&& fn) noexcept {
  try {
    return fn();
  } catch (const std::exception& e) {
    return make_status(EMBER_STATUS_INTERNAL, std::string("plugin threw a C++ exception: ") + e.what());
  } catch (...) {
    return make_status(EMBER_STATUS_INTERNAL, "plugin threw an unknown C++ exception");
  }
}

// call_plugin under the plugin's thread-safety rules.
template <typename Fn>
ember_status* call_device(DeviceBackend& backend, uint32_t thread_safe_flag, Fn&& fn) noexcept {
  if (thread_safe_flag != kAlwaysSerialised && (backend.api->thread_safety & thread_safe_flag) != 0) {
    return call_plugin(fn);
  }
  std::lock_guard lock(backend.serial_lock);
  return call_plugin(fn);
}

}  // namespace ember::plugin
