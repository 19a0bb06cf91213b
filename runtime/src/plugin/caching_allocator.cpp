#include "plugin/caching_allocator.h"

#include <algorithm>
#include <bit>
#include <string>

#include "core/logging.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/status.h"

namespace ember::plugin {

namespace {

// Note [Size classes]
// Up to 1 MiB, requests round up to a multiple of 512 bytes: small tensors
// are many and alike, so fine classes waste little and still hit the cache.
// Above 1 MiB, each power-of-two interval is cut into four classes, so a
// block is at most 25% larger than asked for while shapes that drift a
// little (a ragged last batch) still land in the same class. A cached block
// serves only requests of its own class: without splitting blocks, that keeps
// a large cached block from being eaten by a small tensor.
constexpr size_t kSmallLimit = size_t{1} << 20;
constexpr size_t kSmallGranule = 512;
constexpr size_t kLargeDivisions = 4;
// Enough for any vector unit and for GPU coalescing.
constexpr size_t kAlignment = 256;

size_t round_up(size_t n, size_t multiple) { return (n + multiple - 1) / multiple * multiple; }

}  // namespace

CachingAllocator::CachingAllocator(DeviceBackend& backend, int32_t device_index)
    : backend_(backend), device_index_(device_index) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard lock(mutex_);
  release_cached_blocks();
}

size_t CachingAllocator::round_size(size_t nbytes) {
  if (nbytes <= kSmallLimit) return round_up(std::max(nbytes, size_t{1}), kSmallGranule);
  if (nbytes > SIZE_MAX / 2) return nbytes;  // no class can hold it; the plugin will refuse
  return round_up(nbytes, std::bit_floor(nbytes) / kLargeDivisions);
}

void* CachingAllocator::allocate(size_t nbytes) {
  // Zero-byte storages hold no memory at all (a null data pointer, as in
  // PyTorch), so they never reach the plugin or the statistics.
  if (nbytes == 0) return nullptr;
  size_t size = round_size(nbytes);
  std::lock_guard lock(mutex_);
  void* ptr = nullptr;
  if (auto it = free_blocks_.find(size); it != free_blocks_.end()) {
    ptr = it->second;
    free_blocks_.erase(it);
    ++stats_.num_cache_hits;
  } else {
    ptr = allocate_from_device(size, nbytes);
  }
  ++stats_.num_allocs;
  stats_.allocated += size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  return ptr;
}

void* CachingAllocator::allocate_from_device(size_t size, size_t requested) {
  auto try_allocate = [&](void** ptr) {
    return call_device(backend_, EMBER_DEVICE_ALLOCATOR_THREAD_SAFE,
                       [&] { return backend_.api->allocate(device_index_, size, kAlignment, ptr); });
  };
  void* ptr = nullptr;
  ember_status* status = try_allocate(&ptr);
  if (status != nullptr && status->code == EMBER_STATUS_OUT_OF_MEMORY) {
    delete status;
    release_cached_blocks();
    status = try_allocate(&ptr);
  }
  if (status != nullptr && status->code == EMBER_STATUS_OUT_OF_MEMORY) {
    std::string plugin_message = status->message;
    delete status;
    throw Error(ErrorKind::OutOfMemory, "out of memory on " + backend_.device_name(device_index_) +
                                            ": tried to allocate " + std::to_string(requested) + " bytes (allocated " +
                                            std::to_string(stats_.allocated) + ", reserved " +
                                            std::to_string(stats_.reserved) + "); plugin '" + backend_.plugin_name +
                                            "' said: " + plugin_message);
  }
  throw_if_error(status, "allocating " + std::to_string(size) + " bytes on " + backend_.device_name(device_index_));
  if (ptr == nullptr) {
    throw Error(ErrorKind::Runtime, "plugin '" + backend_.plugin_name + "' returned no memory for " +
                                        std::to_string(size) + " bytes on " + backend_.device_name(device_index_));
  }
  block_sizes_.emplace(ptr, size);
  stats_.reserved += size;
  ++stats_.num_device_allocs;
  return ptr;
}

void CachingAllocator::release(void* ptr) noexcept {
  if (ptr == nullptr) return;
  std::lock_guard lock(mutex_);
  auto it = block_sizes_.find(ptr);
  if (it == block_sizes_.end()) {
    log().error("release of {} on {}, which this allocator never handed out", ptr, backend_.device_name(device_index_));
    return;
  }
  try {
    free_blocks_.emplace(it->second, ptr);
  } catch (...) {
    // No room to cache it: keep it counted as reserved rather than lose track.
  }
  stats_.allocated -= it->second;
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_cached_blocks();
}

void CachingAllocator::release_cached_blocks() {
  for (auto [size, ptr] : free_blocks_) {
    ember_status* status = call_device(backend_, EMBER_DEVICE_ALLOCATOR_THREAD_SAFE,
                                       [&] { return backend_.api->deallocate(device_index_, ptr); });
    if (status != nullptr) {
      // The block is gone for us either way; the plugin keeps what it could not free.
      log().warn("plugin '{}' failed to free {} bytes on {}: {}", backend_.plugin_name, size,
                 backend_.device_name(device_index_), status->message);
      delete status;
    }
    block_sizes_.erase(ptr);
    stats_.reserved -= size;
  }
  free_blocks_.clear();
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_allocated = stats_.allocated;
}

}  // namespace ember::plugin
