// Collective engines across ABI minors: the 1.3 record is read from a 1.3
// plugin and serves process groups, ignored in a 1.2 plugin, and a
// malformed or second record of a name quarantines its plugin with the
// reason.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <ember/ember.h>

#include "distributed/hash_store.h"
#include "distributed/process_group.h"
#include "expect_error.h"
#include "plugin/collective_engine.h"
#include "plugin_paths.h"

namespace ember {
namespace {

using ember::testing::expect_error;

distributed::ProcessGroupOptions world_of_one(const std::string& engine) {
  distributed::ProcessGroupOptions options;
  options.engines = {{"", engine}};
  options.name = engine;
  return options;
}

TEST(CollectivesAbi, AV1_3EngineServesAProcessGroupThroughTheHostsStore) {
  const PluginInfo info = load_plugin(test_plugin_path("collectives_v1_3"));
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.collective_engine, "fake_engine");
  EXPECT_TRUE(info.device_type.empty());
  const plugin::CollectiveEngine* engine = plugin::collective_engine("fake_engine");
  ASSERT_NE(engine, nullptr);
  EXPECT_TRUE(engine->serves_device("cpu"));
  EXPECT_TRUE(engine->moves_dtype("int64"));
  EXPECT_FALSE(engine->moves_dtype("float16"));
  auto store = std::make_shared<distributed::HashStore>();
  distributed::ProcessGroup group(store, world_of_one("fake_engine"));
  EXPECT_TRUE(store->check({"ember/fake_engine/engine/fake_engine/probe"}));
  distributed::CollectiveArgs gather;
  gather.kind = EMBER_COLLECTIVE_ALL_GATHER;
  Tensor out = zeros({3});
  group.run(gather, full({3}, Scalar(2.0)), out)->wait();
  EXPECT_EQ(out.data<float>()[2], 2.0f);
  expect_error([&] { group.run(gather, full({3}, Scalar(2.0), DType::Float16), zeros({3}, DType::Float16)); },
               ErrorKind::Value, "collective engine 'fake_engine' does not move float16 tensors");
  distributed::CollectiveArgs scatter;
  scatter.kind = EMBER_COLLECTIVE_REDUCE_SCATTER;
  distributed::WorkPtr work = group.run(scatter, zeros({2}), zeros({2}));
  expect_error([&] { work->wait(); }, ErrorKind::DistributedBackend,
               "reduce_scatter (sequence 2) on rank 0 of 1, float32 [2] on cpu: collective engine 'fake_engine' "
               "timed out: fake engine: waited 1 ms for nobody");
}

TEST(CollectivesAbi, AnEngineOfADeviceReadsItsMemoryInPlaceOnTheCallersStream) {
  const PluginInfo toy = load_plugin(test_plugin_path("handles_toy"));
  ASSERT_TRUE(toy.loaded) << toy.error;
  EXPECT_EQ(toy.native_api, "toy");
  ASSERT_TRUE(load_plugin(test_plugin_path("collectives_on_device")).loaded);
  auto store = std::make_shared<distributed::HashStore>();
  distributed::ProcessGroup group(store, world_of_one("toy_engine"));
  // Connected at the group's first collective on the device, not before.
  const std::string probe = "ember/toy_engine/engine/toy_engine/handles_toy/probe";
  EXPECT_FALSE(store->check({probe}));
  const Device device("handles_toy:1");
  const Stream stream = Stream::create(device);
  Tensor lent = zeros({4}).to(device);
  distributed::CollectiveArgs all_reduce;
  all_reduce.kind = EMBER_COLLECTIVE_ALL_REDUCE;
  {
    StreamGuard on_stream(stream);
    group.run(all_reduce, std::nullopt, lent)->wait();
  }
  EXPECT_TRUE(store->check({probe}));
  const Tensor seen = lent.to(Device("cpu"));
  EXPECT_EQ(seen.data<float>()[0], 11.0f);  // the toy's ordinal of its device 1
  EXPECT_EQ(seen.data<float>()[1], 1000.0f + static_cast<float>(reinterpret_cast<uintptr_t>(stream.native_handle())));
  EXPECT_EQ(seen.data<float>()[2], static_cast<float>(kDLExtDev));
  EXPECT_EQ(seen.data<float>()[3], 1.0f);

  expect_error([&] { group.run(all_reduce, std::nullopt, zeros({4})); }, ErrorKind::Value,
               "all_reduce: collective engine 'toy_engine' reads handles_toy tensors, not cpu ones");
  distributed::WorkPtr elsewhere = group.run(all_reduce, std::nullopt, zeros({4}).to(Device("handles_toy:0")));
  expect_error([&] { elsewhere->wait(); }, ErrorKind::Value,
               "runs its handles_toy collectives on handles_toy:1; one on handles_toy:0 needs a group of its own");
}

TEST(CollectivesAbi, AnEngineOfDevicesThatAreAbsentRefusesTheGroupNamingThem) {
  ASSERT_TRUE(load_plugin(test_plugin_path("collectives_deviceless")).loaded);
  expect_error(
      [&] {
        distributed::ProcessGroup group(std::make_shared<distributed::HashStore>(), world_of_one("absent_engine"));
      },
      ErrorKind::DistributedBackend,
      "init_process_group: collective engine 'absent_engine' reads absent_device tensors, but no such device is "
      "available");
}

TEST(CollectivesAbi, AV1_2PluginCarryingTheRecordLoadsWithoutAnEngine) {
  const PluginInfo info = load_plugin(test_plugin_path("collectives_v1_2"));
  EXPECT_TRUE(info.loaded);
  EXPECT_EQ(info.negotiated_minor, 2u);
  EXPECT_TRUE(info.collective_engine.empty());
  EXPECT_EQ(plugin::collective_engine("fake_engine_old"), nullptr);
}

TEST(CollectivesAbi, ANullFunctionQuarantinesThePlugin) {
  const std::string error = load_error(test_plugin_path("collectives_broken"));
  EXPECT_NE(error.find("leaves a required function NULL"), std::string::npos) << error;
  EXPECT_EQ(plugin::collective_engine("fake_engine_broken"), nullptr);
}

TEST(CollectivesAbi, ASecondEngineOfANameNamesTheFirst) {
  load_plugin(test_plugin_path("collectives_v1_3"));
  const std::string error = load_error(test_plugin_path("collectives_twin"));
  EXPECT_NE(error.find("collective engine 'fake_engine' is already provided by plugin 'collectives_v1_3'"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace ember
