// The caching allocator over the toy plugin: two host-memory devices of
// 8 MiB each (tests/plugins/toy_device.c).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "ember/error.h"
#include "ember/plugins.h"
#include "plugin/caching_allocator.h"
#include "plugin/device_registry.h"
#include "plugin_paths.h"

namespace ember {
namespace {

using plugin::allocate_storage;
using plugin::CachingAllocator;

constexpr size_t kMiB = size_t{1} << 20;

class CachingAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    load_plugin(test_plugin_path("toy"));
    device_ = Device(plugin::DeviceRegistry::get().find_type("toy"), 0);
    empty_cache(device_);
    reset_peak_memory_stats(device_);
    ASSERT_EQ(memory_stats(device_).reserved, 0u);
  }
  Device device_;
};

TEST(CachingAllocatorSizes, RoundUpToSizeClasses) {
  EXPECT_EQ(CachingAllocator::round_size(1), 512u);
  EXPECT_EQ(CachingAllocator::round_size(512), 512u);
  EXPECT_EQ(CachingAllocator::round_size(513), 1024u);
  EXPECT_EQ(CachingAllocator::round_size(kMiB), kMiB);
  EXPECT_EQ(CachingAllocator::round_size(kMiB + 1), kMiB + kMiB / 4);
  EXPECT_EQ(CachingAllocator::round_size(5 * kMiB + 1), 6 * kMiB);
  EXPECT_EQ(CachingAllocator::round_size(6 * kMiB), 6 * kMiB);
}

TEST_F(CachingAllocatorTest, FreedBlocksServeTheNextRequestOfTheirClass) {
  MemoryStats start = memory_stats(device_);
  void* first = nullptr;
  {
    auto storage = allocate_storage(device_, 1000);
    first = storage->data();
    MemoryStats in_use = memory_stats(device_);
    EXPECT_EQ(in_use.allocated, 1024u);
    EXPECT_EQ(in_use.reserved, 1024u);
    EXPECT_EQ(in_use.num_device_allocs, start.num_device_allocs + 1);
  }
  MemoryStats cached = memory_stats(device_);
  EXPECT_EQ(cached.allocated, 0u);
  EXPECT_EQ(cached.reserved, 1024u);

  auto again = allocate_storage(device_, 1020);
  EXPECT_EQ(again->data(), first);
  MemoryStats reused = memory_stats(device_);
  EXPECT_EQ(reused.num_cache_hits, start.num_cache_hits + 1);
  EXPECT_EQ(reused.num_device_allocs, start.num_device_allocs + 1);
  EXPECT_EQ(reused.num_allocs, start.num_allocs + 2);
  again.reset();

  empty_cache(device_);
  EXPECT_EQ(memory_stats(device_).reserved, 0u);
}

TEST_F(CachingAllocatorTest, PeakFollowsTheHighestAllocation) {
  {
    auto a = allocate_storage(device_, 2 * kMiB);
    auto b = allocate_storage(device_, 512);
  }
  EXPECT_EQ(memory_stats(device_).peak_allocated, 2 * kMiB + 512);
  auto c = allocate_storage(device_, 512);
  reset_peak_memory_stats(device_);
  EXPECT_EQ(memory_stats(device_).peak_allocated, 512u);
}

TEST_F(CachingAllocatorTest, ZeroBytesNeedNoMemory) {
  MemoryStats before = memory_stats(device_);
  auto storage = allocate_storage(device_, 0);
  EXPECT_EQ(storage->data(), nullptr);
  EXPECT_EQ(memory_stats(device_).num_allocs, before.num_allocs);
}

TEST_F(CachingAllocatorTest, OutOfMemoryEmptiesTheCacheAndRetriesOnce) {
  allocate_storage(device_, 6 * kMiB);  // freed at once: 6 MiB stay cached
  ASSERT_EQ(memory_stats(device_).reserved, 6 * kMiB);
  auto four = allocate_storage(device_, 4 * kMiB);  // fits only after the cache is emptied
  EXPECT_EQ(memory_stats(device_).reserved, 4 * kMiB);
  try {
    allocate_storage(device_, 6 * kMiB);
    FAIL() << "12 MiB fit in an 8 MiB device";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::OutOfMemory);
    std::string message = e.what();
    EXPECT_NE(message.find("out of memory on toy:0: tried to allocate 6291456 bytes (allocated 4194304, "
                           "reserved 4194304)"),
              std::string::npos)
        << message;
  }
}

TEST_F(CachingAllocatorTest, ConcurrentUseKeepsTheBooks) {
  MemoryStats before = memory_stats(device_);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, t] {
      for (int i = 0; i < 200; ++i) allocate_storage(device_, 512 * (1 + (i + t) % 8));
    });
  }
  for (auto& thread : threads) thread.join();
  MemoryStats after = memory_stats(device_);
  EXPECT_EQ(after.allocated, 0u);
  EXPECT_EQ(after.num_allocs, before.num_allocs + 800);
  EXPECT_EQ(after.num_allocs - before.num_allocs,
            (after.num_cache_hits - before.num_cache_hits) + (after.num_device_allocs - before.num_device_allocs));
}

}  // namespace
}  // namespace ember
