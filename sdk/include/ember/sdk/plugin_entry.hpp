// plugin_entry.hpp -- the exported entry point without the boilerplate:
// a plugin writes a function that returns its ember_plugin table, and
// EMBER_PLUGIN_ENTRY(fn) exports the ember_plugin_init that keeps the host
// table, stamps the ABI version the plugin was built with, runs fn behind the
// fence and writes the table as far as the core's struct_size allows.
//
//   ember_plugin describe_plugin() {
//     ember_plugin plugin{};
//     plugin.name = "emu";
//     plugin.version = "0.1.0";
//     plugin.device = device_api();
//     plugin.register_kernels = sdk::fenced<register_kernels>;
//     return plugin;
//   }
//   EMBER_PLUGIN_ENTRY(describe_plugin)
#ifndef EMBER_SDK_PLUGIN_ENTRY_HPP_
#define EMBER_SDK_PLUGIN_ENTRY_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/abi_struct.hpp>
#include <ember/sdk/status.hpp>

namespace ember::sdk {

// The body of ember_plugin_init for a plugin described by `Describe`, which
// may throw. The ABI version fields are this SDK's, whatever Describe set.
template <ember_plugin (*Describe)()>
ember_status* plugin_init(const ember_host_api* host, ember_plugin* plugin) noexcept {
  set_host(host);
  return fence([&] {
    ember_plugin mine = Describe();
    mine.abi_major = EMBER_ABI_VERSION_MAJOR;
    mine.abi_minor = EMBER_ABI_VERSION_MINOR;
    write_struct(plugin, mine);
  });
}

}  // namespace ember::sdk

// Defines the plugin's one exported symbol, ember_plugin_init, over
// `describe`, a function `ember_plugin describe()`. Use it once, at global
// scope, in one source file of the plugin.
#define EMBER_PLUGIN_ENTRY(describe)                                                                                 \
  extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) { \
    return ::ember::sdk::plugin_init<describe>(host, plugin);                                                        \
  }

#endif  // EMBER_SDK_PLUGIN_ENTRY_HPP_
