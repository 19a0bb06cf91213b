// The op suite: every (op, dtype) of the catalogue the filter selects, run
// on the device under test and on the CPU reference (Note [Op cases]).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <ember/device.h>
#include <ember/plugins.h>

#include "check.h"

namespace ember::conformance {

struct DeviceUnderTest {
  Device device;
  // Whether the plugin registered a kernel for (op, dtype), or claims it through supports_op.
  std::function<bool(const std::string& op, DType dtype)> provides;
  // The dtype gradients are checked in: float64 where the device has it.
  DType gradient_dtype = DType::Float64;
};

std::vector<std::string> op_check_ids(const std::vector<CatalogueOp>& catalogue);

struct OpSuiteResult {
  std::vector<OpResult> ops;
  std::vector<std::string> ops_without_case;
};

OpSuiteResult run_op_suite(const DeviceUnderTest& target, const std::vector<CatalogueOp>& catalogue,
                           const Filter& filter, bool perf);

}  // namespace ember::conformance
