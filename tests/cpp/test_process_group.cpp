// Process groups over the gloo engine (Note [Process groups]): ranks as
// threads of one process sharing a HashStore, so that the sanitizers see the
// core's worker, watchdog and staging code and the engine together.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "distributed/hash_store.h"
#include "distributed/process_group.h"
#include "ember/ops.h"
#include "expect_error.h"
#include "plugin/collective_engine.h"
#include "plugin/loader.h"

namespace ember::distributed {
namespace {

using ember::testing::expect_error;

bool gloo_loaded() {
  plugin::discover_plugins();
  return plugin::collective_engine("gloo") != nullptr;
}

ProcessGroupOptions options_for(int rank, int world, const std::string& name) {
  ProcessGroupOptions options;
  options.rank = rank;
  options.world_size = world;
  options.timeout = Milliseconds(10000);
  options.name = name;
  return options;
}

// Runs body(rank, group) on `world` threads, each with its own group.
template <class Body>
void on_ranks(int world, const std::string& name, Body body) {
  auto store = std::make_shared<HashStore>();
  std::vector<std::future<void>> ranks;
  for (int r = 0; r < world; ++r) {
    ranks.push_back(std::async(std::launch::async, [&, r] {
      ProcessGroup group(store, options_for(r, world, name));
      body(r, group);
    }));
  }
  for (auto& rank : ranks) rank.get();
}

CollectiveArgs args_of(ember_collective_kind kind, ReduceOp op = ReduceOp::Sum, int root = 0) {
  CollectiveArgs args;
  args.kind = kind;
  args.op = op;
  args.root = root;
  return args;
}

TEST(ProcessGroup, AllReduceAverageAndBroadcastAcrossThreeRanks) {
  if (!gloo_loaded()) GTEST_SKIP() << "the gloo plugin is not built";
  on_ranks(3, "reduce", [](int rank, ProcessGroup& group) {
    Tensor t = full({5}, Scalar(static_cast<double>(rank + 1)), TensorOptions(DType::Float32));
    group.run(args_of(EMBER_COLLECTIVE_ALL_REDUCE), std::nullopt, t)->wait();
    EXPECT_EQ(t.data<float>()[4], 6.0f);
    group.run(args_of(EMBER_COLLECTIVE_ALL_REDUCE, ReduceOp::Avg), std::nullopt, t)->wait();
    EXPECT_EQ(t.data<float>()[0], 6.0f);
    Tensor b = full({2, 2}, Scalar(static_cast<int64_t>(rank)), TensorOptions(DType::Int64));
    group.run(args_of(EMBER_COLLECTIVE_BROADCAST, ReduceOp::Sum, 2), std::nullopt, b)->wait();
    EXPECT_EQ(b.data<int64_t>()[3], 2);
    EXPECT_EQ(group.sequence(), 3u);
  });
}

TEST(ProcessGroup, NonContiguousOperandsAreStagedAndWrittenBack) {
  if (!gloo_loaded()) GTEST_SKIP() << "the gloo plugin is not built";
  on_ranks(2, "staged", [](int rank, ProcessGroup& group) {
    Tensor base = full({4, 4}, Scalar(static_cast<double>(rank + 1)), TensorOptions(DType::Float64));
    Tensor column = base.transpose(0, 1);
    ASSERT_FALSE(column.is_contiguous());
    group.run(args_of(EMBER_COLLECTIVE_ALL_REDUCE), std::nullopt, column)->wait();
    EXPECT_EQ(base.data<double>()[5], 3.0);
  });
}

TEST(ProcessGroup, AMismatchFailsOnEveryRankAndTheGroupGoesOn) {
  if (!gloo_loaded()) GTEST_SKIP() << "the gloo plugin is not built";
  on_ranks(2, "mismatch", [](int rank, ProcessGroup& group) {
    Tensor t = ones({3 + rank});
    WorkPtr work = group.run(args_of(EMBER_COLLECTIVE_ALL_REDUCE), std::nullopt, t);
    expect_error([&] { work->wait(); }, ErrorKind::DistributedBackend, "rank 1 called all_reduce(sum) float32 [4]");
    EXPECT_TRUE(work->is_completed());
    EXPECT_FALSE(work->is_success());
    EXPECT_EQ(t.data<float>()[0], 1.0f);
    Tensor again = ones({2});
    group.run(args_of(EMBER_COLLECTIVE_ALL_REDUCE), std::nullopt, again)->wait();
    EXPECT_EQ(again.data<float>()[1], 2.0f);
  });
}

TEST(ProcessGroup, BadOperandsThrowAtTheCallAndQueueNothing) {
  if (!gloo_loaded()) GTEST_SKIP() << "the gloo plugin is not built";
  on_ranks(1, "operands", [](int, ProcessGroup& group) {
    expect_error([&] { group.run(args_of(EMBER_COLLECTIVE_ALL_GATHER), ones({2}), ones({3})); }, ErrorKind::Value,
                 "all_gather on rank 0 of 1: the output must hold world_size (1) inputs");
    expect_error([&] { group.run(args_of(EMBER_COLLECTIVE_BROADCAST, ReduceOp::Sum, 4), std::nullopt, ones({1})); },
                 ErrorKind::Value, "root 4 is not a rank of the group");
    expect_error([&] { group.run(args_of(EMBER_COLLECTIVE_SEND, ReduceOp::Sum, 0), ones({1}), std::nullopt); },
                 ErrorKind::Value, "cannot send to or receive from itself");
    EXPECT_EQ(group.sequence(), 0u);
  });
}

TEST(ProcessGroup, ShutdownFailsWhatIsQueuedNamingIt) {
  if (!gloo_loaded()) GTEST_SKIP() << "the gloo plugin is not built";
  auto store = std::make_shared<HashStore>();
  ProcessGroup group(store, options_for(0, 1, "shutdown"));
  group.shutdown();
  expect_error([&] { group.run(args_of(EMBER_COLLECTIVE_BARRIER), std::nullopt, std::nullopt); },
               ErrorKind::DistributedBackend, "the process group was destroyed");
  group.shutdown();
}

TEST(ProcessGroup, AnUnknownEngineIsNamed) {
  auto store = std::make_shared<HashStore>();
  ProcessGroupOptions options = options_for(0, 1, "unknown");
  options.engines = {{"", "nccl-that-is-not-here"}};
  expect_error([&] { ProcessGroup group(store, options); }, ErrorKind::Value,
               "no collective engine 'nccl-that-is-not-here' is loaded");
}

}  // namespace
}  // namespace ember::distributed
