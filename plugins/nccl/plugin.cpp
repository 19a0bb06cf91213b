// Entry point of the nccl plugin: a collective engine without a device
// (ABI 1.3) for the CUDA plugin's tensors, over NVIDIA's NCCL.
#include <ember/ember_plugin.hpp>

#include "collectives.h"
#include "communicator.h"

namespace ember::nccl_plugin {
namespace {

Communicator& communicator_of(ember_communicator_t handle) {
  if (handle == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "nccl: NULL communicator");
  return *reinterpret_cast<Communicator*>(handle);
}

void create(const ember_communicator_config* config, ember_communicator_t* out) {
  if (config == nullptr || out == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "nccl: NULL config or output");
  *out = reinterpret_cast<ember_communicator_t>(create_communicator(*config));
}

void run(ember_communicator_t handle, const ember_collective_call* call) {
  if (call == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "nccl: NULL collective call");
  run_collective(communicator_of(handle), *call);
}

void abort(ember_communicator_t handle) { abort_communicator(communicator_of(handle)); }

void destroy(ember_communicator_t handle) { destroy_communicator(reinterpret_cast<Communicator*>(handle)); }

const ember_collectives_extension& collectives_extension() {
  static const ember_collectives_extension extension = [] {
    ember_collectives_extension e{};
    e.header = {sizeof(ember_collectives_extension), EMBER_EXTENSION_COLLECTIVES, nullptr};
    e.engine = "nccl";
    e.device_types = "cuda";
    e.dtypes = moved_dtypes();
    e.create_communicator = sdk::fenced<create>;
    e.run = sdk::fenced<run>;
    e.abort = sdk::fenced<abort>;
    e.destroy_communicator = sdk::fenced<destroy>;
    return e;
  }();
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
