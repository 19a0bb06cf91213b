/*
 * A plugin as a hypothetical ABI minor newer than the SDK it is built with
 * would build it: its ember_plugin has a field the SDK's lacks. It declares
 * its larger struct_size but writes the new field only when the core's
 * struct_size says the core has room for it.
 */
#include <stdio.h>

#include <ember/ember_plugin.h>

#define NEWER_MINOR (EMBER_ABI_VERSION_MINOR + 1)

typedef struct ember_plugin_newer {
  ember_plugin current;
  const char* field_added_in_newer_minor;
} ember_plugin_newer;

static const ember_host_api* g_host;

static ember_status* register_no_kernels(ember_registrar* registrar) {
  (void)registrar;
  return NULL;
}

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  g_host = host;
  if (plugin->struct_size >= sizeof(ember_plugin_newer)) {
    ((ember_plugin_newer*)plugin)->field_added_in_newer_minor = "new";
  }
  plugin->struct_size = sizeof(ember_plugin_newer);
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = NEWER_MINOR;
  plugin->name = "newer_minor";
  plugin->version = "1.0.0";
  plugin->register_kernels = register_no_kernels;
  char line[64];
  snprintf(line, sizeof(line), "running at ABI 1.%u",
           (unsigned)(host->abi_minor < NEWER_MINOR ? host->abi_minor : NEWER_MINOR));
  g_host->log(EMBER_LOG_INFO, "newer_minor", line);
  return NULL;
}
