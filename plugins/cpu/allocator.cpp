// Raw host memory for the core's caching allocator.
#include <cstdlib>
#include <string>

#include <ember/ember_plugin.hpp>

#include "device.h"

namespace ember::cpu {

namespace {
// Cache-line (and AVX-512 vector) alignment at least, whatever is asked.
constexpr size_t kMinAlignment = 64;
}  // namespace

void allocate(int32_t device, size_t num_bytes, size_t alignment, void** ptr) {
  check_device(device);
  *ptr = nullptr;
  if (num_bytes == 0) return;
  if (alignment < kMinAlignment) alignment = kMinAlignment;
  if ((alignment & (alignment - 1)) != 0) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cpu: alignment " + std::to_string(alignment) + " is not a power of two");
  }
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded = (num_bytes + alignment - 1) & ~(alignment - 1);
  void* memory = rounded < num_bytes ? nullptr : std::aligned_alloc(alignment, rounded);
  if (memory == nullptr) {
    sdk::fail(EMBER_STATUS_OUT_OF_MEMORY, "cpu: cannot allocate " + std::to_string(num_bytes) + " bytes");
  }
  *ptr = memory;
}

void deallocate(int32_t device, void* ptr) {
  check_device(device);
  std::free(ptr);
}

}  // namespace ember::cpu
