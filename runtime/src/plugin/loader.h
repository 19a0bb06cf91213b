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
// (colon separated), the install's plugin folder (<libdir>/ember/plugins next
// to libember_runtime) and the build tree's plugins/ folder, in that order.
// The first file of a name wins; later ones are skipped with a log line.
// Discovery never throws: a plugin that fails is quarantined and logged.
void discover_plugins();

// Loads the plugin at `path`, or quarantines it with the reason in the
// result; never throws. A (canonical) path tried before gives its first result.
PluginInfo load(const std::string& path);
// Every plugin tried so far, in load order, without triggering discovery.
std::vector<PluginInfo> loaded_plugins();

}  // namespace ember::plugin
