#include "arena.h"

#include <sys/mman.h>

#include <string>

#include <ember/ember_plugin.hpp>

namespace emu {

namespace sdk = ember::sdk;

namespace {
constexpr size_t kGranule = 64;  // every block starts and ends on this
size_t round_up(size_t value, size_t to) { return (value + to - 1) / to * to; }
}  // namespace

Arena::Arena(size_t capacity) : capacity_(capacity) {
  void* region = mmap(nullptr, capacity, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) sdk::fail(EMBER_STATUS_UNAVAILABLE, "emu: cannot map the device memory");
  base_ = static_cast<char*>(region);
  free_blocks_.emplace(0, capacity);
}

Arena::~Arena() { munmap(base_, capacity_); }

void* Arena::allocate(size_t bytes, size_t alignment) {
  if (bytes == 0) return nullptr;
  if (bytes > capacity_) {
    sdk::fail(EMBER_STATUS_OUT_OF_MEMORY, "emu: " + std::to_string(bytes) + " bytes exceed the device's " +
                                              std::to_string(capacity_));
  }
  const size_t size = round_up(bytes, kGranule);
  std::lock_guard lock(blocks_mutex_);
  for (auto it = free_blocks_.begin(); it != free_blocks_.end(); ++it) {
    const auto [offset, length] = *it;
    const size_t start = round_up(offset, alignment);
    if (start + size > offset + length) continue;
    free_blocks_.erase(it);
    if (start > offset) free_blocks_.emplace(offset, start - offset);
    if (start + size < offset + length) free_blocks_.emplace(start + size, offset + length - start - size);
    used_blocks_.emplace(start, size);
    return base_ + start;
  }
  sdk::fail(EMBER_STATUS_OUT_OF_MEMORY, "emu: out of device memory for " + std::to_string(bytes) + " bytes");
}

void Arena::free(void* ptr) {
  const size_t offset = static_cast<size_t>(static_cast<char*>(ptr) - base_);
  std::lock_guard lock(blocks_mutex_);
  auto used = used_blocks_.find(offset);
  if (ptr < base_ || used == used_blocks_.end()) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "emu: deallocate of a pointer the device did not allocate");
  }
  size_t start = offset, size = used->second;
  used_blocks_.erase(used);
  // Merge with the free neighbours on both sides.
  auto next = free_blocks_.lower_bound(start);
  if (next != free_blocks_.end() && next->first == start + size) {
    size += next->second;
    next = free_blocks_.erase(next);
  }
  if (next != free_blocks_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == start) {
      start = previous->first;
      size += previous->second;
      free_blocks_.erase(previous);
    }
  }
  free_blocks_.emplace(start, size);
}

// [guide:arena_access]
Arena::Access::Access(Arena& arena) : arena_(arena) {
  std::lock_guard lock(arena_.access_mutex_);
  if (arena_.open_count_++ == 0) mprotect(arena_.base_, arena_.capacity_, PROT_READ | PROT_WRITE);
}

Arena::Access::~Access() {
  std::lock_guard lock(arena_.access_mutex_);
  if (--arena_.open_count_ == 0) mprotect(arena_.base_, arena_.capacity_, PROT_NONE);
}
// [/guide:arena_access]

}  // namespace emu
