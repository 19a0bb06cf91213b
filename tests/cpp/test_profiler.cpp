// The host profiler's recorder (runtime/src/profiler): op ranges from the
// dispatcher, record_function nesting, shapes, memory events from the caching
// allocator, threads, and sessions.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <ember/ember.h>
#include <ember/profiler.h>

#include "expect_error.h"

namespace ember {
namespace {

using profiler::EventKind;
using profiler::ProfilerConfig;
using profiler::ProfilerEvent;
using testing::expect_error;

// The host events of `name` (the CPU plugin's device activities of an op
// carry its name too: test_device_time.cpp).
std::vector<const ProfilerEvent*> named(const std::vector<ProfilerEvent>& events, const std::string& name) {
  std::vector<const ProfilerEvent*> found;
  for (const ProfilerEvent& e : events) {
    if (e.name == name && e.kind != EventKind::Device) found.push_back(&e);
  }
  return found;
}

// A session that stops even when an expectation throws.
std::vector<ProfilerEvent> profile(const ProfilerConfig& config, const std::function<void()>& body) {
  profiler::start(config);
  try {
    body();
  } catch (...) {
    profiler::stop();
    throw;
  }
  return profiler::stop();
}

TEST(Profiler, OffRecordsNothing) {
  Tensor a = ones({4});
  for (int i = 0; i < 10; ++i) a = a * a;
  EXPECT_FALSE(profiler::is_enabled());
  profiler::start({});
  EXPECT_TRUE(profiler::is_enabled());
  const std::vector<ProfilerEvent> events = profiler::stop();
  EXPECT_TRUE(events.empty()) << events.size() << " events, the first " << events.front().name;
  EXPECT_FALSE(profiler::is_enabled());
}

TEST(Profiler, EachOpCallIsOneEventWithItsTimesAndDevice) {
  Tensor a = ones({3, 4});
  Tensor b = ones({3, 4});
  const auto events = profile({}, [&] {
    for (int i = 0; i < 5; ++i) a = a * b;
  });
  const auto muls = named(events, "mul");
  ASSERT_EQ(muls.size(), 5u);
  int64_t previous_end = 0;
  for (const ProfilerEvent* e : muls) {
    EXPECT_EQ(e->kind, EventKind::Op);
    EXPECT_LE(e->start_ns, e->end_ns);
    EXPECT_GE(e->start_ns, previous_end);  // one thread: in order, not overlapping
    previous_end = e->end_ns;
    EXPECT_EQ(e->device_type, kCpuDeviceType);
    EXPECT_EQ(e->parent_id, -1);
    EXPECT_NE(e->thread_id, 0u);
    EXPECT_TRUE(e->input_shapes.empty());  // record_shapes is off
  }
}

// The Autograd step's redispatch is the same call (Note [One event per op call]).
TEST(Profiler, AutogradRedispatchIsNotASecondEvent) {
  Tensor a = ones({2, 2}).requires_grad_();
  Tensor b = ones({2, 2});
  const auto events = profile({}, [&] { sum(a * b).backward(); });
  EXPECT_EQ(named(events, "mul").size(), 2u);  // forward, and the grad of a in backward
  const auto node = named(events, "autograd::engine::evaluate_function: MulBackward0");
  ASSERT_EQ(node.size(), 1u);
  bool backward_mul_inside = false;
  for (const ProfilerEvent* e : named(events, "mul")) backward_mul_inside |= e->parent_id == node[0]->id;
  EXPECT_TRUE(backward_mul_inside);
}

TEST(Profiler, RecordFunctionNestsRangesAndOps) {
  Tensor a = ones({8});
  const auto events = profile({}, [&] {
    profiler::RecordFunction outer("outer");
    {
      profiler::RecordFunction inner("inner");
      a = a + a;
    }
    a = a * a;
  });
  const auto outer = named(events, "outer");
  const auto inner = named(events, "inner");
  ASSERT_EQ(outer.size(), 1u);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(outer[0]->kind, EventKind::UserRange);
  EXPECT_EQ(outer[0]->parent_id, -1);
  EXPECT_EQ(inner[0]->parent_id, outer[0]->id);
  ASSERT_EQ(named(events, "add").size(), 1u);
  EXPECT_EQ(named(events, "add")[0]->parent_id, inner[0]->id);
  EXPECT_EQ(named(events, "mul")[0]->parent_id, outer[0]->id);
  EXPECT_LE(outer[0]->start_ns, inner[0]->start_ns);
  EXPECT_GE(outer[0]->end_ns, inner[0]->end_ns);
}

TEST(Profiler, RecordShapesGivesInputShapesAndDtypes) {
  Tensor a = ones({2, 3});
  const auto events = profile({.record_shapes = true}, [&] { (void)add(a, a); });
  const auto adds = named(events, "add");
  ASSERT_EQ(adds.size(), 1u);
  EXPECT_EQ(adds[0]->input_shapes, (std::vector<std::vector<int64_t>>{{2, 3}, {2, 3}}));
  EXPECT_EQ(adds[0]->input_dtypes, (std::vector<std::string>{"float32", "float32"}));
}

TEST(Profiler, ProfileMemoryRecordsAllocationsAndFreesWithTotals) {
  const Tensor a = ones({1000});
  const auto events = profile({.profile_memory = true}, [&] {
    Tensor t = a + a;  // its output: 4000 bytes, a 4096-byte block
    (void)t;
  });
  std::vector<const ProfilerEvent*> memory;
  for (const ProfilerEvent& e : events) {
    if (e.kind == EventKind::Memory) memory.push_back(&e);
  }
  ASSERT_GE(memory.size(), 2u);
  const auto alloc = std::find_if(memory.begin(), memory.end(), [](auto* e) { return e->bytes == 4096; });
  const auto freed = std::find_if(memory.begin(), memory.end(), [](auto* e) { return e->bytes == -4096; });
  ASSERT_NE(alloc, memory.end());
  ASSERT_NE(freed, memory.end());
  EXPECT_EQ((*alloc)->address, (*freed)->address);
  EXPECT_EQ((*alloc)->name, "[memory]");
  EXPECT_EQ((*alloc)->device_type, kCpuDeviceType);
  EXPECT_GE((*alloc)->total_allocated, 4096u);
  EXPECT_GE((*alloc)->total_reserved, (*alloc)->total_allocated);
  EXPECT_GE((*alloc)->peak_allocated, (*alloc)->total_allocated);
  EXPECT_EQ((*freed)->total_allocated + 4096, (*alloc)->total_allocated);
  // The backend step allocated the output inside the op's range.
  ASSERT_GE((*alloc)->parent_id, 0);
  EXPECT_EQ(events[static_cast<size_t>((*alloc)->parent_id)].name, "add");
}

TEST(Profiler, WithoutProfileMemoryNoMemoryEvents) {
  const auto events = profile({}, [&] { (void)ones({1000}); });
  for (const ProfilerEvent& e : events) EXPECT_NE(e.kind, EventKind::Memory);
  EXPECT_FALSE(events.empty());
}

TEST(Profiler, EachThreadRecordsIntoItsOwnBuffer) {
  constexpr int kThreads = 4;
  constexpr int kOps = 50;
  const auto events = profile({}, [&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([] {
        Tensor a = ones({16});
        for (int i = 0; i < kOps; ++i) a = a * a;
      });
    }
    for (std::thread& t : threads) t.join();
  });
  const auto muls = named(events, "mul");
  EXPECT_EQ(muls.size(), static_cast<size_t>(kThreads * kOps));
  std::set<uint64_t> threads;
  for (const ProfilerEvent* e : muls) threads.insert(e->thread_id);
  EXPECT_EQ(threads.size(), static_cast<size_t>(kThreads));
}

TEST(Profiler, ASessionSeesNoEventsOfTheOneBefore) {
  Tensor a = ones({4});
  (void)profile({}, [&] { a = a * a; });
  const auto second = profile({}, [&] { a = a + a; });
  EXPECT_TRUE(named(second, "mul").empty());
  EXPECT_EQ(named(second, "add").size(), 1u);
}

TEST(Profiler, ARangeStillOpenAtStopIsLeftOut) {
  profiler::start({});
  auto open = std::make_unique<profiler::RecordFunction>("unfinished");
  (void)(ones({2}) * 2.0);
  const auto events = profiler::stop();
  open.reset();  // closing after the session changes nothing
  EXPECT_TRUE(named(events, "unfinished").empty());
  ASSERT_FALSE(named(events, "mul").empty());
  EXPECT_EQ(named(events, "mul")[0]->parent_id, -1);
}

TEST(Profiler, OneSessionAtATime) {
  profiler::start({});
  expect_error([] { profiler::start({}); }, ErrorKind::Runtime, "already running");
  profiler::stop();
  expect_error([] { profiler::stop(); }, ErrorKind::Runtime, "without a running profiling session");
}

}  // namespace
}  // namespace ember
