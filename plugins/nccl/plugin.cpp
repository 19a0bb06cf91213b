// Entry point of the nccl plugin: a collective engine without a device
// (ABI 1.3) for the CUDA plugin's tensors, over NVIDIA's NCCL.
#include <ember/ember_plugin.hpp>
#include <ember/sdk/collective_engine.hpp>

#include "collectives.h"
#include "communicator.h"

namespace ember::nccl_plugin {
namespace {

constexpr char kEngine[] = "nccl";

const ember_collectives_extension& collectives_extension() {
  static const ember_collectives_extension extension =
      sdk::collectives_extension<Communicator, kEngine, create_communicator, run_collective, abort_communicator,
                                 destroy_communicator>("cuda", moved_dtypes());
  return extension;
}

ember_plugin describe_plugin() {
  ember_plugin plugin{};
  plugin.name = "nccl";
  plugin.version = EMBER_NCCL_PLUGIN_VERSION;
  plugin.extension = &collectives_extension().header;
  return plugin;
}

}  // namespace
}  // namespace ember::nccl_plugin

EMBER_PLUGIN_ENTRY(ember::nccl_plugin::describe_plugin)
