// Many threads at once, the workload of the ThreadSanitizer build
// (scripts/tsan.sh, docs/reliability.md): ops and backward passes from 8
// threads, plugins loaded while ops run, the caching allocator across
// streams, the profiler and the watchdog's helpers. In the plain build it
// checks that the threads' results are the single-threaded ones.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <ember/ember.h>
#include <ember/profiler.h>

#include "ember/plugins.h"
#include "ember/stream.h"
#include "plugin/device_registry.h"
#include "plugin_paths.h"

namespace ember {
namespace {

constexpr int kThreads = 8;

template <class Body>
void on_threads(const Body& body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&body, t] { body(t); });
  for (std::thread& thread : threads) thread.join();
}

// The gradient of a small MLP's loss with respect to its first weight.
std::vector<float> mlp_gradient(int seed) {
  const Tensor x = arange(0, 32, 1, TensorOptions(DType::Float32)).reshape({4, 8}) / 32.0 + seed;
  Tensor w1 = (arange(0, 128, 1, TensorOptions(DType::Float32)).reshape({8, 16}) / 128.0).requires_grad_();
  const Tensor w2 = arange(0, 16, 1, TensorOptions(DType::Float32)).reshape({16, 1}) / 16.0;
  sum(sigmoid(matmul(relu(matmul(x, w1)), w2))).backward();
  return w1.grad().reshape({-1}).tolist<float>();
}

TEST(Concurrency, OpsAndBackwardFromEightThreadsMatchOneThread) {
  std::vector<std::vector<float>> expected;
  for (int t = 0; t < kThreads; ++t) expected.push_back(mlp_gradient(t));
  std::vector<std::vector<float>> seen(kThreads);
  on_threads([&](int t) {
    for (int i = 0; i < 20; ++i) seen[static_cast<size_t>(t)] = mlp_gradient(t);
  });
  EXPECT_EQ(seen, expected);
}

TEST(Concurrency, PluginsLoadWhileOpsRun) {
  std::atomic<bool> loading{true};
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&] {
      while (loading.load()) {
        if (sum(ones({64}) * 2.0).item<float>() != 128.0f) ++wrong;
      }
    });
  }
  for (const char* plugin : {"toy", "streamed_toy", "lagging", "faulty_kernels"}) {
    EXPECT_TRUE(load_plugin(test_plugin_path(plugin)).loaded) << plugin;
  }
  loading = false;
  for (std::thread& w : workers) w.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Concurrency, TheCachingAllocatorAcrossStreamsAndThreads) {
  load_plugin(test_plugin_path("streamed_toy"));
  const Device device(plugin::DeviceRegistry::get().find_type("streamed"), 0);
  on_threads([&](int t) {
    const Stream stream = Stream::create(device);
    for (int i = 0; i < 200; ++i) {
      const StreamGuard guard(i % 2 == 0 ? stream : Stream::default_stream(device));
      Tensor block = empty({64 + 16 * ((t + i) % 8)}, TensorOptions(DType::Float32, device));
      (void)neg(block);
    }
    synchronize(device);
  });
  synchronize(device);
  empty_cache(device);
  EXPECT_EQ(memory_stats(device).allocated, 0u);
}

TEST(Concurrency, ProfilingWhileThreadsRunOps) {
  std::atomic<bool> running{true};
  std::vector<std::thread> workers;
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&] {
      while (running.load()) (void)(ones({32}) + ones({32}));
    });
  }
  for (int session = 0; session < 20; ++session) {
    profiler::start({});
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const auto events = profiler::stop();
    for (const auto& e : events) EXPECT_LE(e.start_ns, e.end_ns);
  }
  running = false;
  for (std::thread& w : workers) w.join();
}

TEST(Concurrency, TheWatchdogsHelpersFromEightThreads) {
  set_kernel_timeout(std::chrono::seconds(10));
  std::vector<std::vector<float>> seen(kThreads);
  on_threads([&](int t) {
    for (int i = 0; i < 10; ++i) seen[static_cast<size_t>(t)] = mlp_gradient(t);
  });
  set_kernel_timeout(std::chrono::milliseconds(0));
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(seen[static_cast<size_t>(t)], mlp_gradient(t));
}

}  // namespace
}  // namespace ember
