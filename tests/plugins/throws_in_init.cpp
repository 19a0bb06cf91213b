// A C++ plugin that breaks the ABI's rule and lets an exception escape.
#include <stdexcept>

#include <ember/ember_plugin.h>

extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api*, ember_plugin*) {
  throw std::runtime_error("init threw");
}
