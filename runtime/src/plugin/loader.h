#pragma once

#include <string>
#include <vector>

#include "ember/plugins.h"

namespace ember::plugin {

// Note [Plugin discovery]
// Runs once, on the first use of a device or of plugins(): EMBER_PLUGINS
// ("none", or a comma-separated allow-list of plugin names or file paths),
// then every lib*.so in the directories of EMBER_PLUGIN_PATH (colon
// separated), then the install's plugin folder (<libdir>/ember/plugins next
// to libember_runtime) and the build tree's plugins/ folder.
void discover_plugins();

PluginInfo load(const std::string& path);
std::vector<PluginInfo> loaded_plugins();

}  // namespace ember::plugin
