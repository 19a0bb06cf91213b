/* The smallest plugin: no device, no kernels. It proves that the installed
 * SDK alone is enough to build something the core accepts. */
#include <ember/ember_plugin.h>

static ember_status* register_nothing(ember_registrar* registrar) {
  (void)registrar;
  return NULL;
}

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  (void)host;
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = EMBER_ABI_VERSION_MINOR;
  plugin->name = "installed_sdk_probe";
  plugin->version = "0.1";
  plugin->device = NULL;
  plugin->register_kernels = register_nothing;
  return NULL;
}
