#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/plugins.h"
#include "plugin/stream_state.h"

namespace ember::plugin {

struct DeviceBackend;

// Note [Caching allocator]
// One per device. Requests are rounded up to a size class; a freed block goes
// to the free list of its class and serves the next request of that class
// without a call into the plugin. So a loop that makes fresh outputs of the
// same sizes (every training step) reaches the plugin only on its first
// iteration. When the plugin reports out of memory, the cache is emptied and
// the request retried once.
//
// Note [Stream-ordered blocks]
// A block belongs to the stream it was allocated on, and once freed it serves
// only requests on that stream: work queued on one stream runs in order, so
// the next user of the block starts after the last one is done, with no wait
// on the host. A stream that used the block besides its own (record_stream)
// would not be ordered that way, so freeing such a block records an event on
// each of those streams, and the block stays out of every free list until
// the core has seen those events complete: when the stream or the device is
// synchronized, when the cache is emptied, or when the plugin runs out of
// memory (these wait for them). Scratch memory for kernels follows the same
// rule on the kernel's stream. A stream that dies waits for its work first,
// so its cached blocks then serve the default stream.
class CachingAllocator {
 public:
  using StreamRef = std::shared_ptr<const StreamState>;  // null: the default stream

  CachingAllocator(DeviceBackend& backend, int32_t device_index);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block for work on `stream`. Throws ember::Error (OutOfMemory) naming
  // the device and size.
  void* allocate(size_t nbytes, const StreamRef& stream = nullptr);
  void release(void* ptr) noexcept;
  // `stream` uses the live block at `ptr` (see Note [Stream-ordered blocks]).
  void record_stream(void* ptr, const StreamRef& stream);
  // All work on the stream (or the device) queued so far is done.
  void stream_synchronized(uint64_t stream_id) noexcept;
  void device_synchronized() noexcept;
  // The stream is synchronized and about to be destroyed.
  void retire_stream(uint64_t stream_id) noexcept;

  void empty_cache();
  MemoryStats stats() const;
  void reset_peak();

  static size_t round_size(size_t nbytes);

 private:
  struct Block {
    size_t size = 0;
    StreamRef stream;             // while live: the stream it was allocated on
    std::vector<StreamRef> uses;  // while live: other streams from record_stream
    uint64_t free_stream_id = 0;  // while cached: the stream whose requests it serves
  };
  // A freed block waiting for events on the streams that used it.
  struct PendingBlock {
    void* ptr = nullptr;
    size_t size = 0;
    uint64_t stream_id = 0;                                                 // the free list it returns to
    std::vector<std::pair<uint64_t, std::unique_ptr<PluginEvent>>> events;  // (stream id, event)
  };
  // An entry of blocks_: its address is stable, so free lists point to it and
  // a cache hit needs no lookup.
  using BlockEntry = std::pair<void* const, Block>;

  BlockEntry* allocate_from_device(size_t size, size_t requested);
  void cache_free_block(uint64_t stream_id, BlockEntry* entry) noexcept;
  // release() of a block that names streams; unlocks before dropping them.
  void release_on_streams(std::unique_lock<std::mutex>& lock, BlockEntry& entry) noexcept;
  // With mutex_ held.
  void release_cached_blocks();
  void wait_pending_blocks() noexcept;
  void defer_until_uses_done(void* ptr, size_t size, uint64_t stream_id, const std::vector<StreamRef>& uses) noexcept;
  void return_completed_pending() noexcept;
  // profile_memory: an event for the profiler (profiler/memory_events.h).
  void record_memory_event(const void* ptr, int64_t bytes) const noexcept;

  DeviceBackend& backend_;
  int32_t device_index_;
  mutable std::mutex mutex_;
  // Size class -> cached blocks of every stream. Most blocks serve the default
  // stream, so a lookup by size alone usually takes the first block of its class.
  std::multimap<size_t, BlockEntry*> free_blocks_;
  std::unordered_map<void*, Block> blocks_;  // every block held from the plugin
  std::vector<PendingBlock> pending_;
  MemoryStats stats_;
};

}  // namespace ember::plugin
