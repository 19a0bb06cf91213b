// Note [Work-claiming parallel loop]
// A fork-join team (OpenMP's, which this loop used before) gives every thread
// a fixed share of the range and ends in a barrier, so a kernel lasts as long
// as its slowest thread. On a machine where another process holds a core,
// the scheduler runs a woken worker only when that process's time slice
// ends, and every kernel stalled for milliseconds: small-op programs ran ten
// times slower than on an idle machine. Here the range is cut into a few
// chunks per thread, published in one atomic word, and the calling thread
// and the workers each claim the next unclaimed chunk until none is left.
// Whoever runs first does the work: the caller never waits for a worker that
// has not started, only for chunks a worker already claimed, and a
// descheduled worker holds at most one chunk. Idle workers poll for a while,
// so the kernels of a Python loop find them awake, yielding the core to any
// thread that has work, then sleep on a futex; the caller wakes no more of
// them than there are chunks for them.
// One caller uses the pool at a time: another thread's parallel_for in the
// meantime, and a parallel_for inside a chunk, run on their own thread.
#include "parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
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

// The claim word: which task (epoch), its next unclaimed chunk, its chunk
// count. One word, so a claim can never mix one task's counter with another
// task's count.
struct Claim {
  uint32_t epoch;
  uint32_t next;
  uint32_t count;
};
constexpr int kChunkBits = 16;
constexpr int64_t kMaxChunks = (int64_t{1} << kChunkBits) - 1;
static_assert(kMaxThreads * kChunksPerThread <= kMaxChunks);

constexpr uint64_t pack(Claim c) {
  return uint64_t{c.epoch} << (2 * kChunkBits) | uint64_t{c.next} << kChunkBits | c.count;
}
constexpr Claim unpack(uint64_t word) {
  constexpr uint64_t mask = (uint64_t{1} << kChunkBits) - 1;
  return {static_cast<uint32_t>(word >> (2 * kChunkBits)), static_cast<uint32_t>(word >> kChunkBits & mask),
          static_cast<uint32_t>(word & mask)};
}

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
    const auto count = static_cast<uint32_t>(chunks);
    claim_.store(pack({++epoch_, 0, count}), std::memory_order_release);
    wake_workers(std::min<int64_t>(chunks - 1, static_cast<int64_t>(workers_.size())));
    while (run_one_chunk()) {
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
  // Claims the next chunk of the current task and runs it; false when every
  // chunk is claimed.
  bool run_one_chunk() {
    uint64_t word = claim_.load(std::memory_order_acquire);
    Claim claim;
    do {
      claim = unpack(word);
      if (claim.next >= claim.count) return false;
    } while (!claim_.compare_exchange_weak(word, word + (uint64_t{1} << kChunkBits), std::memory_order_acq_rel,
                                           std::memory_order_acquire));
    // A claimed chunk keeps its task's fields in place until done_ counts it.
    const RangeFn& fn = *fn_.load(std::memory_order_relaxed);
    const int64_t begin = begin_.load(std::memory_order_relaxed);
    const sdk::Range range = sdk::split_range(length_.load(std::memory_order_relaxed), claim.count, claim.next);
    const bool was_in_chunk = std::exchange(t_in_chunk, true);
    try {
      fn(begin + range.begin, begin + range.end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    t_in_chunk = was_in_chunk;
    if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == claim.count) done_.notify_all();
    return true;
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

  void work() {
    uint32_t seen = wake_.load(std::memory_order_acquire);
    while (!stop_.load(std::memory_order_acquire)) {
      while (run_one_chunk()) {
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
        workers_.emplace_back([this] { work(); });
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
  std::atomic<uint64_t> claim_{0};
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
