/*
 * A plugin as a hypothetical ABI 1.7 would build it: its ember_plugin has a
 * field that 1.0 lacks. It declares its larger struct_size but writes the new
 * field only when the core's struct_size says the core has room for it.
 */
#include <stdio.h>

#include <ember/ember_plugin.h>

typedef struct ember_plugin_v1_7 {
  ember_plugin v1_0;
  const char* field_added_in_1_7;
} ember_plugin_v1_7;

static const ember_host_api* g_host;

static ember_status* register_no_kernels(ember_registrar* registrar) {
  (void)registrar;
  return NULL;
}

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  g_host = host;
  if (plugin->struct_size >= sizeof(ember_plugin_v1_7)) {
    ((ember_plugin_v1_7*)plugin)->field_added_in_1_7 = "new";
  }
  plugin->struct_size = sizeof(ember_plugin_v1_7);
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = 7;
  plugin->name = "newer_minor";
  plugin->version = "1.7.0";
  plugin->register_kernels = register_no_kernels;
  char line[64];
  snprintf(line, sizeof(line), "running at ABI 1.%u", (unsigned)(host->abi_minor < 7 ? host->abi_minor : 7));
  g_host->log(EMBER_LOG_INFO, "newer_minor", line);
  return NULL;
}
