// The end-to-end suite: small models trained for a few steps on the device
// must follow the CPU's losses step by step. A model the device cannot train
// for want of an op fails, or is skipped when `partial` (Options::partial).
#pragma once

#include <string>
#include <vector>

#include <ember/device.h>

#include "check.h"

namespace ember::conformance {

std::vector<std::string> e2e_check_ids();
std::vector<CheckResult> run_e2e_suite(Device device, const Filter& filter, bool partial);

}  // namespace ember::conformance
