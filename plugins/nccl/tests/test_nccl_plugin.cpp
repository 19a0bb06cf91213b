// The nccl collective engine through the core's process groups. Without a
// GPU it loads as the engine of cuda tensors and a group on it is refused
// with the missing device named; with one, a world of one rank runs every
// collective on cuda tensors, on the caller's stream, against the CPU.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <string>
#include <vector>

#include "distributed/hash_store.h"
#include "distributed/process_group.h"
#include "expect_error.h"
#include "plugin/collective_engine.h"

namespace ember {
namespace {

using ember::testing::expect_error;

const PluginInfo& nccl_plugin() {
  static const PluginInfo info = load_plugin(EMBER_NCCL_PLUGIN_PATH);
  return info;
}

bool cuda_plugin_loaded() {
#ifdef EMBER_CUDA_PLUGIN_PATH
  static const PluginInfo info = load_plugin(EMBER_CUDA_PLUGIN_PATH);
  return info.loaded;
#else
  return false;
#endif
}

distributed::ProcessGroupOptions nccl_world_of_one() {
  distributed::ProcessGroupOptions options;
  options.engines = {{"", "nccl"}};
  options.name = "nccl_test";
  options.timeout = distributed::Milliseconds(20000);
  return options;
}

TEST(NcclPlugin, LoadsAsTheEngineOfCudaTensors) {
  ASSERT_TRUE(nccl_plugin().loaded) << nccl_plugin().error;
  EXPECT_EQ(nccl_plugin().collective_engine, "nccl");
  EXPECT_TRUE(nccl_plugin().device_type.empty());
  const plugin::CollectiveEngine* engine = plugin::collective_engine("nccl");
  ASSERT_NE(engine, nullptr);
  EXPECT_TRUE(engine->serves_device("cuda"));
  EXPECT_FALSE(engine->serves_device("cpu"));
  for (const char* dtype : {"bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64"}) {
    EXPECT_TRUE(engine->moves_dtype(dtype)) << dtype;
  }
  EXPECT_FALSE(engine->moves_dtype("int16"));  // NCCL has no 16-bit integers
}

TEST(NcclPlugin, TheCudaPluginLendsItsNativeHandles) {
  if (!cuda_plugin_loaded()) GTEST_SKIP() << "the CUDA plugin is not built here";
  for (const PluginInfo& info : plugins()) {
    if (info.device_type == "cuda") EXPECT_EQ(info.native_api, "cuda");
  }
}

TEST(NcclPlugin, WithoutAGpuAGroupIsRefusedNamingTheMissingDevice) {
  ASSERT_TRUE(nccl_plugin().loaded);
  cuda_plugin_loaded();
  if (device_count("cuda") > 0) GTEST_SKIP() << "a GPU is present";
  expect_error([] { distributed::ProcessGroup group(std::make_shared<distributed::HashStore>(), nccl_world_of_one()); },
               ErrorKind::DistributedBackend,
               "collective engine 'nccl' reads cuda tensors, but no such device is available");
}

class NcclOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(nccl_plugin().loaded) << nccl_plugin().error;
    if (!cuda_plugin_loaded() || device_count("cuda") == 0) GTEST_SKIP() << "no CUDA device on this machine";
  }
};

Tensor on_gpu(const Tensor& t) { return t.to(Device("cuda:0")); }

std::vector<float> host_values(const Tensor& t) {
  const Tensor c = t.to(Device("cpu"), DType::Float32).contiguous();
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}

TEST_F(NcclOnGpu, EveryCollectiveOfAWorldOfOneMatchesTheCpu) {
  distributed::ProcessGroup group(std::make_shared<distributed::HashStore>(), nccl_world_of_one());
  const std::vector<float> expected = {0, 1, 2, 3, 4, 5};
  const Tensor values = tensor<float>(expected);
  const Stream stream = Stream::create(Device("cuda:0"));
  StreamGuard on_stream(stream);

  distributed::CollectiveArgs args;
  args.kind = EMBER_COLLECTIVE_ALL_REDUCE;
  for (auto op : {distributed::ReduceOp::Sum, distributed::ReduceOp::Avg, distributed::ReduceOp::Max}) {
    args.op = op;
    Tensor t = on_gpu(values);
    group.run(args, std::nullopt, t)->wait();
    EXPECT_EQ(host_values(t), expected);
  }
  args = {};
  args.kind = EMBER_COLLECTIVE_BROADCAST;
  Tensor b = on_gpu(values);
  group.run(args, std::nullopt, b)->wait();
  EXPECT_EQ(host_values(b), expected);

  args.kind = EMBER_COLLECTIVE_ALL_GATHER;
  Tensor gathered = on_gpu(zeros({6}));
  group.run(args, on_gpu(values), gathered)->wait();
  EXPECT_EQ(host_values(gathered), expected);

  args.kind = EMBER_COLLECTIVE_REDUCE_SCATTER;
  Tensor block = on_gpu(zeros({6}));
  group.run(args, on_gpu(values), block)->wait();
  EXPECT_EQ(host_values(block), expected);

  args.kind = EMBER_COLLECTIVE_ALL_TO_ALL;
  Tensor exchanged = on_gpu(zeros({6}));
  group.run(args, on_gpu(values), exchanged)->wait();
  EXPECT_EQ(host_values(exchanged), expected);

  Tensor flags = on_gpu(tensor<float>({1, 0}).to(DType::Bool));
  args = {};
  args.kind = EMBER_COLLECTIVE_ALL_REDUCE;
  group.run(args, std::nullopt, flags)->wait();
  EXPECT_EQ(host_values(flags), (std::vector<float>{1, 0}));

  args = {};
  args.kind = EMBER_COLLECTIVE_BARRIER;
  group.run(args, std::nullopt, std::nullopt)->wait();
}

TEST_F(NcclOnGpu, CpuTensorsAndTaggedMessagesAreRefusedNamingWhy) {
  distributed::ProcessGroup group(std::make_shared<distributed::HashStore>(), nccl_world_of_one());
  distributed::CollectiveArgs args;
  args.kind = EMBER_COLLECTIVE_ALL_REDUCE;
  expect_error([&] { group.run(args, std::nullopt, zeros({2})); }, ErrorKind::Value,
               "collective engine 'nccl' reads cuda tensors, not cpu ones");
  args.kind = EMBER_COLLECTIVE_SEND;
  args.root = 0;
  args.tag = 7;
  distributed::WorkPtr work = group.run(args, on_gpu(zeros({2})), std::nullopt);
  expect_error([&] { work->wait(); }, ErrorKind::DistributedBackend, "NCCL has no message tags");
}

}  // namespace
}  // namespace ember
