#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

#include "ember/plugins.h"

namespace ember::plugin {

struct DeviceBackend;

// Note [Caching allocator]
// One per device. Requests are rounded up to a size class; a freed block goes
// to the free list of its class and serves the next request of that class
// without a call into the plugin. So a loop that makes fresh outputs of the
// same sizes (every training step) reaches the plugin only on its first
// iteration. When the plugin reports out of memory, the cache is emptied and
// the request retried once.
class CachingAllocator {
 public:
  CachingAllocator(DeviceBackend& backend, int32_t device_index);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Throws ember::Error (OutOfMemory) naming the device and size.
  void* allocate(size_t nbytes);
  void release(void* ptr) noexcept;
  void empty_cache();
  MemoryStats stats() const;
  void reset_peak();

  static size_t round_size(size_t nbytes);

 private:
  void* allocate_from_device(size_t size, size_t requested);
  void release_cached_blocks();  // with mutex_ held

  DeviceBackend& backend_;
  int32_t device_index_;
  mutable std::mutex mutex_;
  std::multimap<size_t, void*> free_blocks_;       // size class -> block
  std::unordered_map<void*, size_t> block_sizes_;  // every live block
  MemoryStats stats_;
};

}  // namespace ember::plugin
