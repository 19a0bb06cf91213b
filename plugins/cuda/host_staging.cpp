#include "host_staging.h"

#include <array>
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "runtime_error.h"

namespace ember::gpu {

// Note [Pinned staging]: DMA engines read and write only page-locked host
// memory, so a copy from pageable memory is staged through pinned buffers
// either way. Doing it here, in chunks over two buffers, lets the CPU's
// memcpy of one chunk overlap the DMA of the other, and keeps the copy on
// the caller's stream. Small copies go straight to the runtime, whose own
// staging is cheaper to start.
namespace {

constexpr size_t kChunkBytes = size_t{4} << 20;
constexpr size_t kDirectCopyBytes = size_t{256} << 10;

struct Staging {
  std::mutex mutex;
  std::array<void*, 2> buffers{};
  std::array<cudaEvent_t, 2> done{};  // the DMA that last used a buffer

  void ensure_allocated() {
    if (buffers[0] != nullptr) return;
    for (size_t b = 0; b < buffers.size(); ++b) {
      check(cudaMallocHost(&buffers[b], kChunkBytes), "cudaMallocHost of a staging buffer");
      check(cudaEventCreateWithFlags(&done[b], cudaEventDisableTiming), "cudaEventCreate");
    }
  }
};

std::mutex g_registry_mutex;
std::map<int32_t, Staging> g_staging;

Staging& staging_of(int32_t device) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  return g_staging[device];
}

// A small copy through the runtime's own staging, waited for.
void copy_directly(void* dst, const void* src, size_t num_bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  const bool to_device = kind == cudaMemcpyHostToDevice;
  check(cudaMemcpyAsync(dst, src, num_bytes, kind, stream),
        to_device ? "cudaMemcpyAsync host to device" : "cudaMemcpyAsync device to host");
  check(cudaStreamSynchronize(stream), to_device ? "cudaStreamSynchronize after a copy to the device"
                                                 : "cudaStreamSynchronize after a copy to the host");
}

}  // namespace

void copy_host_to_device(int32_t device, void* dst, const void* src, size_t num_bytes, cudaStream_t stream) {
  if (num_bytes <= kDirectCopyBytes) return copy_directly(dst, src, num_bytes, cudaMemcpyHostToDevice, stream);
  Staging& s = staging_of(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.ensure_allocated();
  size_t b = 0;
  for (size_t done = 0; done < num_bytes; done += kChunkBytes, b ^= 1) {
    const size_t n = std::min(kChunkBytes, num_bytes - done);
    check(cudaEventSynchronize(s.done[b]), "cudaEventSynchronize on a staging buffer");
    std::memcpy(s.buffers[b], static_cast<const char*>(src) + done, n);
    check(cudaMemcpyAsync(static_cast<char*>(dst) + done, s.buffers[b], n, cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync host to device");
    check(cudaEventRecord(s.done[b], stream), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after a copy to the device");
}

void copy_device_to_host(int32_t device, void* dst, const void* src, size_t num_bytes, cudaStream_t stream) {
  if (num_bytes <= kDirectCopyBytes) return copy_directly(dst, src, num_bytes, cudaMemcpyDeviceToHost, stream);
  Staging& s = staging_of(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  s.ensure_allocated();
  // Chunk k lands in buffer k % 2; it is copied out to `dst` while the DMA
  // of chunk k + 1 runs.
  const size_t chunks = (num_bytes + kChunkBytes - 1) / kChunkBytes;
  auto enqueue = [&](size_t k) {
    const size_t n = std::min(kChunkBytes, num_bytes - k * kChunkBytes);
    check(cudaMemcpyAsync(s.buffers[k % 2], static_cast<const char*>(src) + k * kChunkBytes, n,
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync device to host");
    check(cudaEventRecord(s.done[k % 2], stream), "cudaEventRecord");
  };
  enqueue(0);
  for (size_t k = 0; k < chunks; ++k) {
    if (k + 1 < chunks) enqueue(k + 1);
    check(cudaEventSynchronize(s.done[k % 2]), "cudaEventSynchronize on a staging buffer");
    const size_t n = std::min(kChunkBytes, num_bytes - k * kChunkBytes);
    std::memcpy(static_cast<char*>(dst) + k * kChunkBytes, s.buffers[k % 2], n);
  }
}

void release_staging() {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  for (auto& [device, s] : g_staging) {
    for (size_t b = 0; b < s.buffers.size(); ++b) {
      if (s.buffers[b] == nullptr) continue;
      (void)cudaFreeHost(s.buffers[b]);
      (void)cudaEventDestroy(s.done[b]);
    }
  }
  g_staging.clear();
}

}  // namespace ember::gpu
