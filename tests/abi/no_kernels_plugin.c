/*
 * A plugin with no device and no kernels, as a code generator or a
 * collective engine is: ABI 1.1 lets it leave register_kernels NULL.
 */
#include <ember/ember_plugin.h>

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  (void)host;
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = EMBER_ABI_VERSION_MINOR;
  plugin->name = "no_kernels";
  plugin->version = "0.1";
  return NULL;
}
