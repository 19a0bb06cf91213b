/* A plugin whose entry point reports an error, as a driver-less GPU plugin would. */
#include <ember/ember_plugin.h>

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = EMBER_ABI_VERSION_MINOR;
  plugin->name = "init_fails";
  return host->status_create(EMBER_STATUS_UNAVAILABLE, "no device found: driver missing");
}
