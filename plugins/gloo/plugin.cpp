// Entry point of the gloo plugin: a collective engine without a device
// (ABI 1.3) over Gloo's TCP transport.
#include <ember/ember_plugin.hpp>
#include <ember/sdk/collective_engine.hpp>

#include "collectives.h"
#include "communicator.h"

namespace ember::gloo_plugin {
namespace {

constexpr char kEngine[] = "gloo";

void destroy(Communicator* communicator) { delete communicator; }

const ember_collectives_extension& collectives_extension() {
  static const ember_collectives_extension extension =
      sdk::collectives_extension<Communicator, kEngine, create_communicator, run_collective, abort_communicator,
                                 destroy>("cpu", moved_dtypes());
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
