// Entry point of the gloo plugin: a collective engine without a device
// (ABI 1.3) over Gloo's TCP transport.
#include <ember/ember_plugin.hpp>

#include "collectives.h"
#include "communicator.h"

namespace ember::gloo_plugin {
namespace {

Communicator& communicator_of(ember_communicator_t handle) {
  if (handle == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "gloo: NULL communicator");
  return *reinterpret_cast<Communicator*>(handle);
}

void create(const ember_communicator_config* config, ember_communicator_t* out) {
  if (config == nullptr || out == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "gloo: NULL config or output");
  *out = reinterpret_cast<ember_communicator_t>(create_communicator(*config));
}

void run(ember_communicator_t handle, const ember_collective_call* call) {
  if (call == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "gloo: NULL collective call");
  run_collective(communicator_of(handle), *call);
}

void abort(ember_communicator_t handle) { abort_communicator(communicator_of(handle)); }

void destroy(ember_communicator_t handle) { delete reinterpret_cast<Communicator*>(handle); }

const ember_collectives_extension& collectives_extension() {
  static const ember_collectives_extension extension = [] {
    ember_collectives_extension e{};
    e.header = {sizeof(ember_collectives_extension), EMBER_EXTENSION_COLLECTIVES, nullptr};
    e.engine = "gloo";
    e.device_types = "cpu";
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
  plugin.name = "gloo";
  plugin.version = EMBER_GLOO_PLUGIN_VERSION;
  plugin.extension = &collectives_extension().header;
  return plugin;
}

}  // namespace
}  // namespace ember::gloo_plugin

EMBER_PLUGIN_ENTRY(ember::gloo_plugin::describe_plugin)
