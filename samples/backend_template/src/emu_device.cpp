#include "emu_device.h"

#include <cstdlib>
#include <string>

namespace emu {

namespace sdk = ember::sdk;

namespace {
std::mutex g_device_mutex;
EmuDevice* g_device = nullptr;  // outlives static destructors on purpose: the core may free memory at exit
}  // namespace

Stream& EmuDevice::stream(ember_stream_t handle) {
  if (handle == nullptr) return default_stream_;
  std::lock_guard lock(streams_mutex_);
  auto it = streams_.find(handle);
  if (it == streams_.end()) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "emu: unknown stream handle");
  return *it->second;
}

ember_stream_t EmuDevice::create_stream() {
  auto s = std::make_unique<Stream>();
  const auto handle = reinterpret_cast<ember_stream_t>(s.get());
  std::lock_guard lock(streams_mutex_);
  streams_.emplace(handle, std::move(s));
  return handle;
}

void EmuDevice::destroy_stream(ember_stream_t handle) {
  std::unique_ptr<Stream> doomed;  // joined outside the lock
  {
    std::lock_guard lock(streams_mutex_);
    auto it = streams_.find(handle);
    if (it == streams_.end()) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "emu: unknown stream handle");
    doomed = std::move(it->second);
    streams_.erase(it);
  }
}

void EmuDevice::synchronize() {
  default_stream_.synchronize();
  std::lock_guard lock(streams_mutex_);
  for (const auto& [handle, s] : streams_) s->synchronize();
}

size_t emu_memory_bytes() {
  const char* text = std::getenv("EMU_MEMORY_MB");
  const long megabytes = text != nullptr ? std::strtol(text, nullptr, 10) : 0;
  return megabytes > 0 ? static_cast<size_t>(megabytes) << 20 : size_t{1} << 30;
}

EmuDevice& emu_device(int32_t ordinal) {
  if (ordinal != 0) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "emu: device " + std::to_string(ordinal) + " does not exist");
  }
  std::lock_guard lock(g_device_mutex);
  if (g_device == nullptr) g_device = new EmuDevice(emu_memory_bytes());
  return *g_device;
}

void release_emu_device() {
  std::lock_guard lock(g_device_mutex);
  delete g_device;
  g_device = nullptr;
}

}  // namespace emu
