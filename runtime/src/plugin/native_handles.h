#pragma once
// A device plugin's native handles (ABI 1.3): what the core lends a
// collective engine that reads the device's memory in place (NCCL for
// CUDA), so that it enqueues on the device's own streams.
#include <cstdint>
#include <optional>

#include <ember/ember_plugin.h>

namespace ember::plugin {

// The checked record on the plugin's chain, copied and cut off from the
// rest of the chain (`header.next` NULL), or nothing when the plugin has
// none or the session's minor predates it. Throws the reason for quarantine
// when it is malformed.
std::optional<ember_native_handles_extension> find_native_handles(const ember_plugin& plugin,
                                                                  uint32_t negotiated_minor);

}  // namespace ember::plugin
