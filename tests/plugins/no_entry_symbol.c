/* A shared library that exports something, but not ember_plugin_init. */
#include <ember/ember_plugin.h>

EMBER_PLUGIN_EXPORT int ember_plugin_entry_misspelled(void) { return 0; }
