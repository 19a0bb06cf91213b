#pragma once

#include <string>
#include <vector>

#include "ember/plugins.h"

namespace ember::plugin {

// Note [Plugin discovery]
// Runs once, on the first use of a device, of plugins() or of load_plugin()
// (so the default plugins own their device types whatever the order of
// calls). EMBER_PLUGINS is "none" (discover nothing) or a comma-separated
// allow-list of plugin names and file paths; paths are loaded first. Then
// every libember_plugin_<name>.so in the directories of EMBER_PLUGIN_PATH
// (colon separated) and in the install's plugin folder (<libdir>/ember/plugins
// next to libember_runtime, found from the library's own address), in that
// order; the build tree has the install's layout, so the same rule finds its
// plugins. No absolute path is built into the runtime: an installed copy
// never looks in the folder it was built in. Only regular files are opened.
// The first file of a name that loads wins; later ones are skipped with a
// log line, and a file that fails leaves the name to the next. Discovery
// never throws: a plugin that fails is quarantined and logged.
void discover_plugins();

// The name and device type a plugin is loaded under instead of its own
// (load_plugin_as()).
struct PluginAlias {
  std::string name;
  std::string device_type;
};

// Loads the plugin at `path`, or quarantines it with the reason in the
// result; never throws. A (canonical) path tried before gives its first result.
PluginInfo load(const std::string& path, const PluginAlias* alias = nullptr);
// Every plugin tried so far, in load order, without triggering discovery.
std::vector<PluginInfo> loaded_plugins();

}  // namespace ember::plugin
