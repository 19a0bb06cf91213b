// Comparing a device's result with the reference's, with tolerances per
// dtype, and describing tensors in failure messages.
#pragma once

#include <cstdint>
#include <string>

#include <ember/tensor.h>

namespace ember::conformance {

// |actual - expected| <= atol + rtol * |expected|, elementwise.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// Integers and bool compare exactly; floating dtypes get room for a few
// units in the last place, and `scale` widens that for long accumulations.
Tolerance tolerance_for(DType dtype, double scale = 1);

struct Comparison {
  bool ok = true;
  std::string problem;    // what differs, with the worst element
  double max_error = 0;   // largest |actual - expected| over finite pairs
};

// Shapes, dtypes and values (NaN matches NaN, an infinity only itself).
Comparison compare(const Tensor& actual, const Tensor& expected, double tolerance_scale = 1);

// Exact equality of shapes and values.
bool equal_values(const Tensor& a, const Tensor& b);

// "float32[3, 4] strides [1, 3] = [0.5, -1, ...]": enough to rerun a failure.
std::string describe_tensor(const Tensor& t);

}  // namespace ember::conformance
