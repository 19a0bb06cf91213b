// The ABI suite: the plugin's entry point, version negotiation, struct
// sizes, registration, memory, copies, streams and events, kernel errors,
// concurrency and reloading, each a check named "abi/<what>".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ember/device.h>

#include "check.h"
#include "plugin_harness.h"

namespace ember::conformance {

std::vector<std::string> abi_check_ids();

// Runs the checks `filter` selects on a private copy of the plugin at
// `plugin_path` (Note [Private plugin copy]); `device` is the same plugin's
// device as loaded by the core, for the checks that go through it.
std::vector<CheckResult> run_abi_suite(const std::string& plugin_path, std::optional<Device> device,
                                       const Filter& filter);

}  // namespace ember::conformance
