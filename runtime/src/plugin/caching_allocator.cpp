#include "plugin/caching_allocator.h"

#include <algorithm>
#include <bit>
#include <string>

#include "core/logging.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/status.h"
#include "profiler/memory_events.h"

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

// With mutex_ held, so the totals are those just after this change.
void CachingAllocator::record_memory_event(const void* ptr, int64_t bytes) const noexcept {
  profiler::record_memory(Device(backend_.type, device_index_), ptr, bytes,
                          {stats_.allocated, stats_.reserved, stats_.peak_allocated});
}

size_t CachingAllocator::round_size(size_t nbytes) {
  if (nbytes <= kSmallLimit) return round_up(std::max(nbytes, size_t{1}), kSmallGranule);
  if (nbytes > SIZE_MAX / 2) return nbytes;  // no class can hold it; the plugin will refuse
  return round_up(nbytes, std::bit_floor(nbytes) / kLargeDivisions);
}

void* CachingAllocator::allocate(size_t nbytes, const StreamRef& stream) {
  // Zero-byte storages hold no memory at all (a null data pointer, as in
  // PyTorch), so they never reach the plugin or the statistics.
  if (nbytes == 0) return nullptr;
  size_t size = round_size(nbytes);
  std::lock_guard lock(mutex_);
  BlockEntry* entry = nullptr;
  const uint64_t stream_id = id_of(stream);
  auto it = free_blocks_.lower_bound(size);
  while (it != free_blocks_.end() && it->first == size && it->second->second.free_stream_id != stream_id) ++it;
  if (it != free_blocks_.end() && it->first == size) {
    entry = it->second;
    free_blocks_.erase(it);
    ++stats_.num_cache_hits;
  } else {
    entry = allocate_from_device(size, nbytes);
  }
  if (stream) entry->second.stream = stream;  // a free block holds none
  ++stats_.num_allocs;
  stats_.allocated += size;
  stats_.peak_allocated = std::max(stats_.peak_allocated, stats_.allocated);
  if (profiler::memory_profiling_on()) [[unlikely]]
    record_memory_event(entry->first, static_cast<int64_t>(size));
  return entry->first;
}

CachingAllocator::BlockEntry* CachingAllocator::allocate_from_device(size_t size, size_t requested) {
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
  BlockEntry& entry = *blocks_.emplace(ptr, Block{size, nullptr, {}}).first;
  stats_.reserved += size;
  ++stats_.num_device_allocs;
  return &entry;
}

inline void CachingAllocator::cache_free_block(uint64_t stream_id, BlockEntry* entry) noexcept {
  try {
    entry->second.free_stream_id = stream_id;
    free_blocks_.emplace(entry->second.size, entry);
  } catch (...) {
    // No room to cache it: keep it counted as reserved rather than lose track.
  }
}

void CachingAllocator::release(void* ptr) noexcept {
  if (ptr == nullptr) return;
  std::unique_lock lock(mutex_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) {
    log().error("release of {} on {}, which this allocator never handed out", ptr, backend_.device_name(device_index_));
    return;
  }
  Block& block = it->second;
  stats_.allocated -= block.size;
  if (profiler::memory_profiling_on()) [[unlikely]]
    record_memory_event(ptr, -static_cast<int64_t>(block.size));
  if (!block.stream && block.uses.empty()) {
    cache_free_block(0, &*it);
    return;
  }
  release_on_streams(lock, *it);
}

void CachingAllocator::release_on_streams(std::unique_lock<std::mutex>& lock, BlockEntry& entry) noexcept {
  // Dropped after the lock: the last reference to a stream retires it, which
  // takes the lock again.
  const StreamRef stream = std::exchange(entry.second.stream, nullptr);
  const std::vector<StreamRef> uses = std::exchange(entry.second.uses, {});
  if (uses.empty()) {
    cache_free_block(id_of(stream), &entry);
  } else {
    defer_until_uses_done(entry.first, entry.second.size, id_of(stream), uses);
  }
  lock.unlock();
}

void CachingAllocator::record_stream(void* ptr, const StreamRef& stream) {
  if (ptr == nullptr) return;
  std::lock_guard lock(mutex_);
  auto it = blocks_.find(ptr);
  if (it == blocks_.end()) return;
  Block& block = it->second;
  if (id_of(stream) == id_of(block.stream)) return;
  for (const StreamRef& use : block.uses) {
    if (id_of(use) == id_of(stream)) return;
  }
  block.uses.push_back(stream);
}

void CachingAllocator::defer_until_uses_done(void* ptr, size_t size, uint64_t stream_id,
                                             const std::vector<StreamRef>& uses) noexcept {
  PendingBlock pending{ptr, size, stream_id, {}};
  for (const StreamRef& use : uses) {
    try {
      auto event = std::make_unique<PluginEvent>(backend_, device_index_);
      event->record(handle_of(use));
      pending.events.emplace_back(id_of(use), std::move(event));
    } catch (const std::exception& e) {
      // Without an event the only safe answer is to wait for the stream now.
      log().warn("no event for a block freed after use on another stream of {} ({}); waiting for that stream",
                 backend_.device_name(device_index_), e.what());
      try {
        synchronize_stream(backend_, device_index_, handle_of(use));
      } catch (const std::exception& sync_error) {
        log().error("{}: the block at {} is kept out of reuse", sync_error.what(), ptr);
        return;
      }
    }
  }
  if (pending.events.empty()) {
    cache_free_block(stream_id, &*blocks_.find(ptr));
    return;
  }
  try {
    pending_.push_back(std::move(pending));
  } catch (...) {
    // No room to track it: it stays reserved and is never reused.
  }
}

void CachingAllocator::return_completed_pending() noexcept {
  auto done = std::partition(pending_.begin(), pending_.end(), [](const PendingBlock& p) { return !p.events.empty(); });
  for (auto it = done; it != pending_.end(); ++it) cache_free_block(it->stream_id, &*blocks_.find(it->ptr));
  pending_.erase(done, pending_.end());
}

void CachingAllocator::stream_synchronized(uint64_t stream_id) noexcept {
  std::lock_guard lock(mutex_);
  for (PendingBlock& pending : pending_) {
    std::erase_if(pending.events, [&](const auto& entry) { return entry.first == stream_id; });
  }
  return_completed_pending();
}

void CachingAllocator::device_synchronized() noexcept {
  std::lock_guard lock(mutex_);
  for (PendingBlock& pending : pending_) pending.events.clear();
  return_completed_pending();
}

void CachingAllocator::retire_stream(uint64_t stream_id) noexcept {
  std::lock_guard lock(mutex_);
  for (PendingBlock& pending : pending_) {
    std::erase_if(pending.events, [&](const auto& entry) { return entry.first == stream_id; });
    if (pending.stream_id == stream_id) pending.stream_id = 0;
  }
  return_completed_pending();
  for (auto [size, entry] : free_blocks_) {
    if (entry->second.free_stream_id == stream_id) entry->second.free_stream_id = 0;
  }
}

void CachingAllocator::wait_pending_blocks() noexcept {
  for (PendingBlock& pending : pending_) {
    for (auto& [stream_id, event] : pending.events) {
      try {
        event->synchronize();
      } catch (const std::exception& e) {
        log().warn("waiting for a freed block's event on {}: {}", backend_.device_name(device_index_), e.what());
      }
    }
    pending.events.clear();
  }
  return_completed_pending();
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_cached_blocks();
}

void CachingAllocator::release_cached_blocks() {
  wait_pending_blocks();
  for (auto [size, entry] : free_blocks_) {
    void* ptr = entry->first;
    ember_status* status = call_device(backend_, EMBER_DEVICE_ALLOCATOR_THREAD_SAFE,
                                       [&] { return backend_.api->deallocate(device_index_, ptr); });
    if (status != nullptr) {
      // The block is gone for us either way; the plugin keeps what it could not free.
      log().warn("plugin '{}' failed to free {} bytes on {}: {}", backend_.plugin_name, size,
                 backend_.device_name(device_index_), status->message);
      delete status;
    }
    blocks_.erase(ptr);
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
