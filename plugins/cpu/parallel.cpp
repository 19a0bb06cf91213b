// Note [Work-claiming parallel loop]
// A fork-join team (OpenMP's, which this loop used before) gives every thread
// a fixed share of the range and ends in a barrier, so a kernel lasts as long
// as its slowest thread. On a machine where another process holds a core,
// the scheduler runs a woken worker only when that process's time slice
// ends, and every kernel stalled for milliseconds: small-op programs ran ten
// times slower than on an idle machine. Here the range is cut into a few
// chunks per thread, and the calling thread and the workers each claim
// chunks until none is left. Whoever runs first does the work: the caller
// never waits for a worker that has not started, only for chunks a worker
// already claimed, and a descheduled worker holds at most one chunk. Idle
// workers poll for a while, so the kernels of a Python loop find them awake,
// yielding the core to any thread that has work, then sleep on a futex; the
// caller wakes no more of them than there are chunks for them.
// Note [Shares of a parallel loop]: the chunks are dealt out as a static
// schedule would deal them, a contiguous share of the range per thread (the
// caller's first, then worker 1's, ...), and each thread claims the chunks
// of its own share first, from its front, before it takes what is left of
// the others'. When every thread runs, each touches the same part of a
// tensor from one kernel to the next, so a part one kernel wrote is still in
// that core's cache when the next reads it, and the threads finish together:
// a chunk count that is a multiple of the thread count. Claimed in one
// shared order instead, a chunk went to whichever thread asked first, the
// parts moved between cores' caches from one kernel to the next, and over a
// megabyte an add of two tensors took twice PyTorch's time on two cores.
// One caller uses the pool at a time: another thread's parallel_for in the
// meantime, and a parallel_for inside a chunk, run on their own thread.
#include "parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <ember/ember_plugin.hpp>

namespace ember::cpu {
namespace {

constexpr int64_t kChunksPerThread = 4;
// Threads beyond this are not started, whatever num_threads() says.
constexpr int kMaxThreads = 1024;
// How long a waiting thread polls before it sleeps: a worker, longer than
// the gaps between the parallel kernels of a Python training step (about
// what libgomp spins); the caller, about one chunk.
constexpr auto kWorkerSpin = std::chrono::microseconds(2000);
constexpr auto kCallerSpin = std::chrono::microseconds(50);

void relax_cpu() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls `ready` until it holds (true) or `spin` has passed (false), yielding
// the core now and then so that a thread with work (one of oneDNN's OpenMP
// threads, another process) gets it first.
template <class Ready>
bool spin_until(Ready&& ready, std::chrono::microseconds spin) {
  const auto deadline = std::chrono::steady_clock::now() + spin;
  for (uint32_t poll = 1;; ++poll) {
    if (ready()) return true;
    if (poll % 64 != 0) {
      relax_cpu();
    } else if (std::chrono::steady_clock::now() >= deadline) {
      return false;
    } else {
      std::this_thread::yield();
    }
  }
}

// True on a thread while it runs a chunk: a parallel_for there runs inline.
thread_local bool t_in_chunk = false;

std::atomic<const char*> g_worker_name{"ember-cpu"};  // set_worker_name

// The task word says which task (epoch) runs, into how many shares its
// chunks are dealt and how many chunks it has; each share's word says the
// task it belongs to, its next unclaimed chunk and its end. One word each, so
// a claim can never mix one task's counters with another task's.
struct TaskWord {
  uint32_t epoch;
  uint32_t shares;
  uint32_t chunks;
};
struct ShareWord {
  uint32_t epoch;
  uint32_t next;
  uint32_t end;
};
constexpr int kChunkBits = 16;
constexpr int64_t kMaxChunks = (int64_t{1} << kChunkBits) - 1;
static_assert(kMaxThreads * kChunksPerThread <= kMaxChunks);

constexpr uint64_t pack_fields(uint32_t epoch, uint32_t high, uint32_t low) {
  return uint64_t{epoch} << (2 * kChunkBits) | uint64_t{high} << kChunkBits | low;
}
constexpr uint64_t pack(TaskWord t) { return pack_fields(t.epoch, t.shares, t.chunks); }
constexpr uint64_t pack(ShareWord s) { return pack_fields(s.epoch, s.next, s.end); }
constexpr uint32_t epoch_of(uint64_t word) { return static_cast<uint32_t>(word >> (2 * kChunkBits)); }
constexpr uint32_t high_of(uint64_t word) {
  return static_cast<uint32_t>(word >> kChunkBits & ((uint64_t{1} << kChunkBits) - 1));
}
constexpr uint32_t low_of(uint64_t word) { return static_cast<uint32_t>(word & ((uint64_t{1} << kChunkBits) - 1)); }
constexpr TaskWord unpack_task(uint64_t word) { return {epoch_of(word), high_of(word), low_of(word)}; }
constexpr ShareWord unpack_share(uint64_t word) { return {epoch_of(word), high_of(word), low_of(word)}; }

// A share's word on a cache line of its own, so that threads claiming from
// their own shares do not contend for one line.
struct alignas(64) ShareSlot {
  std::atomic<uint64_t> word{0};
};

class ThreadPool {
 public:
  // A pool replacing one that a fork() left without threads; the old one is
  // kept, never destroyed (its std::thread objects name threads that do not
  // exist in this process).
  explicit ThreadPool(ThreadPool* forked_parent) : forked_parent_(forked_parent) {}

  // Runs fn over `chunks` chunks of [begin, begin + length) on this thread
  // and the workers; false, having run nothing, when another caller holds
  // the pool.
  bool try_run(int64_t begin, int64_t length, int64_t chunks, const RangeFn& fn) {
    std::unique_lock<std::mutex> lock(run_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    resize();
    fn_.store(&fn, std::memory_order_relaxed);
    begin_.store(begin, std::memory_order_relaxed);
    length_.store(length, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    // One share of the chunks per thread (Note [Shares of a parallel loop]).
    const int64_t shares = std::min<int64_t>(chunks, static_cast<int64_t>(workers_.size()) + 1);
    chunks -= chunks % shares;
    const uint32_t epoch = ++epoch_;
    for (int64_t share = 0; share < shares; ++share) {
      shares_[share].word.store(pack(ShareWord{epoch, static_cast<uint32_t>(share * chunks / shares),
                                               static_cast<uint32_t>((share + 1) * chunks / shares)}),
                                std::memory_order_relaxed);
    }
    const auto count = static_cast<uint32_t>(chunks);
    task_.store(pack(TaskWord{epoch, static_cast<uint32_t>(shares), count}), std::memory_order_release);
    wake_workers(std::min<int64_t>(shares - 1, static_cast<int64_t>(workers_.size())));
    while (run_one_chunk(0)) {
    }
    wait_until_done(count);
    std::exception_ptr error;
    {
      std::lock_guard<std::mutex> error_lock(error_mutex_);
      error = error_;
    }
    if (error) std::rethrow_exception(error);
    return true;
  }

  void resize_now() {
    std::lock_guard<std::mutex> lock(run_mutex_);
    resize();
  }

 private:
  // Claims a chunk of the current task, from the share of thread `self`
  // (0 the caller, i + 1 worker i) first, and runs it; false when every
  // chunk is claimed.
  bool run_one_chunk(uint32_t self) {
    const TaskWord task = unpack_task(task_.load(std::memory_order_acquire));
    for (uint32_t offset = 0; offset < task.shares; ++offset) {
      std::atomic<uint64_t>& slot = shares_[(self + offset) % task.shares].word;
      uint64_t word = slot.load(std::memory_order_acquire);
      ShareWord share;
      do {
        share = unpack_share(word);
        if (share.epoch != task.epoch || share.next >= share.end) break;
      } while (!slot.compare_exchange_weak(word, word + (uint64_t{1} << kChunkBits), std::memory_order_acq_rel,
                                           std::memory_order_acquire));
      if (share.epoch == task.epoch && share.next < share.end) {
        run_chunk(share.next, task.chunks);
        return true;
      }
    }
    return false;
  }

  // Runs chunk `index` of `count`, which this thread has claimed: the task's
  // fields stay in place until done_ counts it.
  void run_chunk(uint32_t index, uint32_t count) {
    const RangeFn& fn = *fn_.load(std::memory_order_relaxed);
    const int64_t begin = begin_.load(std::memory_order_relaxed);
    const sdk::Range range = sdk::split_range(length_.load(std::memory_order_relaxed), count, index);
    const bool was_in_chunk = std::exchange(t_in_chunk, true);
    try {
      fn(begin + range.begin, begin + range.end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    t_in_chunk = was_in_chunk;
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == count) done_.notify_all();
  }

  void wait_until_done(uint32_t count) {
    if (spin_until([&] { return done_.load(std::memory_order_acquire) == count; }, kCallerSpin)) return;
    for (uint32_t done; (done = done_.load(std::memory_order_acquire)) != count;) {
      done_.wait(done, std::memory_order_acquire);
    }
  }

  void wake_workers(int64_t wanted) {
    if (wanted <= 0) return;
    wake_.fetch_add(1, std::memory_order_release);
    if (wanted >= static_cast<int64_t>(workers_.size())) {
      wake_.notify_all();
    } else {
      for (int64_t i = 0; i < wanted; ++i) wake_.notify_one();
    }
  }

  void work(uint32_t self) {
    uint32_t seen = wake_.load(std::memory_order_acquire);
    while (!stop_.load(std::memory_order_acquire)) {
      while (run_one_chunk(self)) {
      }
      seen = await_wake(seen);
    }
  }

  uint32_t await_wake(uint32_t seen) {
    if (spin_until([&] { return wake_.load(std::memory_order_acquire) != seen; }, kWorkerSpin)) {
      return wake_.load(std::memory_order_acquire);
    }
    wake_.wait(seen, std::memory_order_acquire);
    return wake_.load(std::memory_order_acquire);
  }

  // Matches the workers to num_threads(). Called with run_mutex_ held, so no
  // task is running.
  void resize() {
    const int wanted = std::min(num_threads(), kMaxThreads) - 1;
    if (static_cast<int>(workers_.size()) == wanted) return;
    stop_.store(true, std::memory_order_release);
    wake_.fetch_add(1, std::memory_order_release);
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
    workers_.clear();
    stop_.store(false, std::memory_order_release);
    try {
      while (static_cast<int>(workers_.size()) < wanted) {
        const auto self = static_cast<uint32_t>(workers_.size()) + 1;
        workers_.emplace_back([this, self] { work(self); });
        pthread_setname_np(workers_.back().native_handle(), g_worker_name.load(std::memory_order_relaxed));
      }
    } catch (const std::system_error&) {
      // Out of threads: the ones started suffice, the caller runs the rest.
    }
  }

  ThreadPool* forked_parent_;  // kept reachable, see the constructor
  std::mutex run_mutex_;       // held by the one caller running a task
  std::vector<std::thread> workers_;
  uint32_t epoch_ = 0;  // the current task's number, written under run_mutex_
  std::atomic<uint64_t> task_{0};
  std::unique_ptr<ShareSlot[]> shares_ = std::make_unique<ShareSlot[]>(kMaxThreads);
  std::atomic<const RangeFn*> fn_{nullptr};
  std::atomic<int64_t> begin_{0};
  std::atomic<int64_t> length_{0};
  std::atomic<uint32_t> done_{0};  // chunks of the current task finished
  std::atomic<uint32_t> wake_{0};  // bumped to wake workers
  std::atomic<bool> stop_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;  // the first exception of the current task
};

std::atomic<ThreadPool*> g_pool{nullptr};

void replace_pool_after_fork() { g_pool.store(new ThreadPool(g_pool.load())); }

ThreadPool& pool() {
  static const bool created = [] {
    g_pool.store(new ThreadPool(nullptr));
    pthread_atfork(nullptr, nullptr, replace_pool_after_fork);
    return true;
  }();
  (void)created;
  return *g_pool.load(std::memory_order_acquire);
}

}  // namespace

void set_worker_name(const char* name) { g_worker_name.store(name, std::memory_order_relaxed); }

void resize_thread_pool() {
  if (ThreadPool* existing = g_pool.load(std::memory_order_acquire)) existing->resize_now();
}

void parallel_run(int64_t begin, int64_t end, int64_t grain, RangeFn fn) {
  const int64_t length = end - begin;
  const int64_t threads = std::min(num_threads(), kMaxThreads);
  const int64_t chunks =
      std::min((length + std::max<int64_t>(grain, 1) - 1) / std::max<int64_t>(grain, 1), threads * kChunksPerThread);
  if (threads <= 1 || chunks <= 1 || t_in_chunk || !pool().try_run(begin, length, chunks, fn)) fn(begin, end);
}

}  // namespace ember::cpu
