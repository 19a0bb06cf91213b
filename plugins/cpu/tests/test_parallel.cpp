// The CPU plugin's parallel loop and thread count, compiled into the test
// (Note [Work-claiming parallel loop], Note [CPU thread count]). Nothing here
// measures time: where a thread must wait for another, it waits on a
// condition with a generous deadline, and missing the deadline is a failure.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "../parallel.h"

namespace ember::cpu {
namespace {

constexpr auto kDeadline = std::chrono::seconds(30);

// Runs parallel_for over [begin, end) and returns how often each index ran.
std::vector<int> visits(int64_t begin, int64_t end, int64_t grain) {
  std::vector<std::atomic<int>> counts(static_cast<size_t>(end));
  parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) counts[static_cast<size_t>(i)].fetch_add(1);
  });
  std::vector<int> result;
  for (int64_t i = begin; i < end; ++i) result.push_back(counts[static_cast<size_t>(i)].load());
  return result;
}

TEST(ParallelFor, RunsEveryIndexOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 7}) {
    set_num_threads(threads);
    EXPECT_EQ(num_threads(), threads);
    for (int64_t grain : {1, 16, 1000}) {
      const std::vector<int> counts = visits(5, 10007, grain);
      EXPECT_EQ(std::count(counts.begin(), counts.end(), 1), static_cast<long>(counts.size()))
          << threads << " threads, grain " << grain;
    }
  }
}

TEST(ParallelFor, OneThreadRunsEverythingOnTheCaller) {
  set_num_threads(1);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> elsewhere{0};
  parallel_for(0, 4096, 1, [&](int64_t, int64_t) {
    if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
  });
  EXPECT_EQ(elsewhere.load(), 0);
}

// A worker that has claimed a chunk and then stops (as a descheduled one
// would) must not keep the caller from the other chunks: the worker's chunk
// waits until the caller has run all the rest. A loop that hands each thread
// a fixed share never gets there, and the worker misses its deadline.
TEST(ParallelFor, CallerRunsTheOtherChunksWhileAWorkerIsHeld) {
  set_num_threads(2);
  constexpr int64_t kChunks = 8;  // a grain of 1 over 8 indices: 8 chunks of 1
  const std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::condition_variable changed;
  int64_t caller_chunks = 0;
  bool worker_missed_deadline = false;
  std::vector<std::atomic<int>> counts(kChunks);
  parallel_for(0, kChunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) counts[static_cast<size_t>(i)].fetch_add(1);
    std::unique_lock<std::mutex> lock(mutex);
    if (std::this_thread::get_id() == caller) {
      caller_chunks += end - begin;
      changed.notify_all();
    } else if (!changed.wait_for(lock, kDeadline, [&] { return caller_chunks >= kChunks - (end - begin); })) {
      worker_missed_deadline = true;
    }
  });
  EXPECT_FALSE(worker_missed_deadline);
  EXPECT_GE(caller_chunks, kChunks - 1);
  for (const auto& count : counts) EXPECT_EQ(count.load(), 1);
}

// Each thread claims the front of its own share first (Note [Shares of a
// parallel loop]): with two threads and eight chunks, the worker's share is
// the back half, so the first chunk a worker runs is chunk 4, while the
// caller waits in its own chunks until a worker has run one. Claimed in one
// shared order, the worker would take chunk 1.
TEST(ParallelFor, AWorkerStartsAtTheFrontOfItsOwnShare) {
  set_num_threads(2);
  for (int round = 0; round < 20; ++round) {
    const std::thread::id caller = std::this_thread::get_id();
    std::mutex mutex;
    std::condition_variable changed;
    std::optional<int64_t> worker_first;
    bool missed_deadline = false;
    parallel_for(0, 8, 1, [&](int64_t begin, int64_t) {
      std::unique_lock<std::mutex> lock(mutex);
      if (std::this_thread::get_id() != caller) {
        if (!worker_first) worker_first = begin;
        changed.notify_all();
      } else if (!changed.wait_for(lock, kDeadline, [&] { return worker_first.has_value(); })) {
        missed_deadline = true;
      }
    });
    ASSERT_FALSE(missed_deadline);
    EXPECT_EQ(worker_first, 4) << "round " << round;
  }
}

TEST(ParallelFor, NestedCallsRunOnTheirOwnThread) {
  set_num_threads(3);
  std::atomic<int> moved{0};
  parallel_for(0, 64, 1, [&](int64_t, int64_t) {
    const std::thread::id outer = std::this_thread::get_id();
    parallel_for(0, 64, 1, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() != outer) moved.fetch_add(1);
    });
  });
  EXPECT_EQ(moved.load(), 0);
}

TEST(ParallelFor, ConcurrentCallersEachGetTheirResult) {
  set_num_threads(2);
  constexpr int64_t kSize = 1 << 14;
  std::vector<int64_t> totals(4, 0);
  std::vector<std::thread> callers;
  for (size_t c = 0; c < totals.size(); ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 50; ++round) {
        std::vector<int64_t> values(kSize, 0);
        parallel_for(0, kSize, 256, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) values[static_cast<size_t>(i)] = i;
        });
        totals[c] += std::accumulate(values.begin(), values.end(), int64_t{0});
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int64_t total : totals) EXPECT_EQ(total, 50 * (kSize * (kSize - 1) / 2));
}

TEST(ParallelFor, AnExceptionReachesTheCallerAfterEveryChunkRan) {
  set_num_threads(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(0, 64, 1,
                            [&](int64_t begin, int64_t end) {
                              ran.fetch_add(1);
                              if (begin <= 17 && 17 < end) throw std::runtime_error("index 17");
                            }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 8);  // 2 threads, 4 chunks each
  const std::vector<int> counts = visits(0, 1000, 1);
  EXPECT_EQ(std::count(counts.begin(), counts.end(), 1), 1000);
}

TEST(ParallelFor, WorksInAForkedChild) {
  set_num_threads(2);
  ASSERT_EQ(visits(0, 1000, 1), std::vector<int>(1000, 1));  // the parent's pool has a worker now
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(30);  // a hang fails the test through the signal
    const std::vector<int> counts = visits(0, 1000, 1);
    _exit(std::count(counts.begin(), counts.end(), 1) == 1000 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

TEST(NumThreads, SetRejectsCountsBelowOne) {
  set_num_threads(2);
  for (int bad : {0, -1}) {
    try {
      set_num_threads(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), EMBER_STATUS_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("positive"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(num_threads(), 2);
}

TEST(NumThreads, ParsesCountsAsOpenMPSpellsThem) {
  EXPECT_EQ(parse_num_threads("4"), 4);
  EXPECT_EQ(parse_num_threads(" 3 "), 3);
  EXPECT_EQ(parse_num_threads("2,1"), 2);  // one count per nesting level
  for (const char* bad : {"", "0", "-1", "+2", "abc", "3x", "1.5", "99999999999"}) {
    EXPECT_EQ(parse_num_threads(bad), std::nullopt) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace ember::cpu
