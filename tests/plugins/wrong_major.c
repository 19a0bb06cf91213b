/* A plugin built for a future major version of the ABI. */
#include <ember/ember_plugin.h>

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  (void)host;
  plugin->abi_major = 2;
  plugin->abi_minor = 3;
  return NULL;
}
