// What the oneDNN-backed kernels share: the engine, a stream per thread, and
// a bounded cache of built primitives.
#ifndef EMBER_PLUGINS_CPU_KERNELS_ONEDNN_H_
#define EMBER_PLUGINS_CPU_KERNELS_ONEDNN_H_

#include <oneapi/dnnl/dnnl.hpp>

#include <ember/ember_plugin.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "../num_threads.h"

namespace ember::cpu {

dnnl::engine& cpu_engine();

// Streams are not meant for concurrent use, so each calling thread has one.
dnnl::stream& thread_stream();

// The multiply-adds that make one more thread worth starting for a oneDNN
// call (Note [oneDNN threads]).
inline constexpr int64_t kOneDnnMultiplyAddsPerThread = int64_t{1} << 23;

// Sets the OpenMP threads of this thread's next oneDNN calls (primitive
// builds included) for a call of this many multiply-adds (Note [oneDNN
// threads]).
void use_onednn_threads(int64_t multiply_adds);

// Note [Primitive cache]: building a oneDNN primitive costs far more than
// running a small one, so plans are cached by everything their descriptors
// depend on. Plans are built outside the lock (two threads may race to build
// the same one, which is harmless); plans in use survive a flush of a full
// cache because callers hold a shared_ptr. Plans are built for one thread
// count (Note [oneDNN threads]): a change of num_threads() empties the cache.
template <class Key, class Plan, class Hash>
class PrimitiveCache {
 public:
  template <class Build>
  std::shared_ptr<const Plan> get(const Key& key, Build&& build) {
    const int threads = num_threads();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (threads != threads_) {
        plans_.clear();
        threads_ = threads;
      }
      if (auto it = plans_.find(key); it != plans_.end()) return it->second;
    }
    auto plan = std::make_shared<const Plan>(build());
    std::lock_guard<std::mutex> lock(mutex_);
    if (threads != threads_) return plan;
    if (plans_.size() >= kMaxEntries) plans_.clear();
    plans_.emplace(key, plan);
    return plan;
  }

 private:
  static constexpr size_t kMaxEntries = 512;
  std::mutex mutex_;
  int threads_ = 0;  // num_threads() the cached plans were built for
  std::unordered_map<Key, std::shared_ptr<const Plan>, Hash> plans_;
};

// One tensor of a primitive: the caller's layout, the primitive's, and when
// they differ, the reorder between them (into the primitive's layout for
// what it reads, out of it for what it writes) and where the copy lives in
// the call's scratch block (Note [Convolution call overhead]).
struct ReorderedOperand {
  dnnl::memory::desc user, inner;
  std::optional<dnnl::reorder> reorder;
  size_t scratch_offset = 0;
};

// Reserves `bytes` of a call's scratch block of `scratch_bytes` so far,
// 64-byte aligned as oneDNN's kernels prefer; returns its offset.
size_t reserve_scratch(size_t& scratch_bytes, size_t bytes);

// The operand of caller layout `user` and primitive layout `inner`; `read`:
// the primitive reads it (else writes it). Its copy, when the layouts
// differ, is reserved in the scratch block.
ReorderedOperand reordered_operand(const dnnl::memory::desc& user, const dnnl::memory::desc& inner, bool read,
                                   size_t& scratch_bytes);

// A call's view of one operand: the caller's memory and the memory the
// primitive uses (a copy in the scratch block when the layouts differ).
struct BoundOperand {
  dnnl::memory user, inner;
};

BoundOperand bind_operand(const ReorderedOperand& o, const DLTensor& t, char* scratch);

// A call's scratch block of `bytes` from the host's caching allocator, or
// null for none.
char* scratch_block(const ember_kernel_call& call, size_t bytes);

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_ONEDNN_H_
