// The emulated device's memory: one region the host cannot touch. It is
// mapped without access rights, and opened only while device work runs
// (Arena::Access), so a host read of a device pointer faults at once
// instead of silently working as it would with plain host memory.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

namespace emu {

class Arena {
 public:
  explicit Arena(size_t capacity);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // First fit; throws OUT_OF_MEMORY when no free block is large enough.
  void* allocate(size_t bytes, size_t alignment);
  // Throws INVALID_ARGUMENT for a pointer allocate() did not return.
  void free(void* ptr);
  size_t capacity() const { return capacity_; }

  // Opens the region for reading and writing while at least one Access lives.
  class Access {
   public:
    explicit Access(Arena& arena);
    ~Access();
    Access(const Access&) = delete;
    Access& operator=(const Access&) = delete;

   private:
    Arena& arena_;
  };

 private:
  char* base_;
  size_t capacity_;
  std::mutex blocks_mutex_;
  std::map<size_t, size_t> free_blocks_;  // offset -> size
  std::map<size_t, size_t> used_blocks_;  // offset -> size
  std::mutex access_mutex_;
  int open_count_ = 0;
};

}  // namespace emu
