// Gradients on the device by the core's autograd, against central finite
// differences of the same op on the same device.
#pragma once

#include <optional>
#include <string>

#include "op_case.h"

namespace ember::conformance {

struct GradientResult {
  bool differentiable = false;  // false: no output required a gradient
  bool ok = true;
  std::string problem;
  double max_error = 0;
};

GradientResult check_gradient(const OpCase& op_case, const Variation& variation, DType dtype, Device device);

}  // namespace ember::conformance
