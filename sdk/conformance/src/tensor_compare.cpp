#include "tensor_compare.h"

#include <cmath>
#include <sstream>
#include <vector>

namespace ember::conformance {

namespace {

constexpr int64_t kShownValues = 24;

std::string join(const DimVector& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string format_number(double v) {
  std::ostringstream out;
  out.precision(9);
  out << v;
  return out.str();
}

// Elements in row-major order as doubles (int64 beyond 2^53 rounds, which
// only the exact integer comparison below cares about).
std::vector<double> host_doubles(const Tensor& t) { return t.to(Device("cpu")).tolist<double>(); }

}  // namespace

Tolerance tolerance_for(DType dtype, double scale) {
  switch (dtype) {
    case DType::Float16: return {2e-3 * scale, 1e-3 * scale};
    case DType::BFloat16: return {1.6e-2 * scale, 1e-2 * scale};
    case DType::Float32: return {1e-5 * scale, 1e-5 * scale};
    case DType::Float64: return {1e-9 * scale, 1e-10 * scale};
    default: return {0, 0};
  }
}

Comparison compare(const Tensor& actual, const Tensor& expected, double tolerance_scale) {
  Comparison result;
  if (actual.sizes() != expected.sizes()) {
    result.ok = false;
    result.problem = "shape " + join(actual.sizes()) + " instead of " + join(expected.sizes());
    return result;
  }
  if (actual.dtype() != expected.dtype()) {
    result.ok = false;
    result.problem = "dtype " + std::string(dtype_name(actual.dtype())) + " instead of " +
                     std::string(dtype_name(expected.dtype()));
    return result;
  }
  int64_t worst = -1;
  double worst_excess = 0;
  std::vector<double> got, want;
  if (is_floating(expected.dtype())) {
    got = host_doubles(actual);
    want = host_doubles(expected);
  } else {
    const std::vector<int64_t> a = actual.to(Device("cpu")).tolist<int64_t>();
    const std::vector<int64_t> e = expected.to(Device("cpu")).tolist<int64_t>();
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] != e[i]) {
        result.ok = false;
        result.problem = "element " + std::to_string(i) + " is " + std::to_string(a[i]) + ", expected " +
                         std::to_string(e[i]);
        result.max_error = std::abs(static_cast<double>(a[i]) - static_cast<double>(e[i]));
        return result;
      }
    }
    return result;
  }
  const Tolerance tol = tolerance_for(expected.dtype(), tolerance_scale);
  for (size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], e = want[i];
    if (std::isnan(e) || std::isnan(a)) {
      if (std::isnan(e) != std::isnan(a)) {
        worst = static_cast<int64_t>(i);
        worst_excess = INFINITY;
      }
      continue;
    }
    if (std::isinf(e) || std::isinf(a)) {
      if (a != e) {
        worst = static_cast<int64_t>(i);
        worst_excess = INFINITY;
      }
      continue;
    }
    const double error = std::abs(a - e);
    result.max_error = std::max(result.max_error, error);
    const double excess = error - (tol.atol + tol.rtol * std::abs(e));
    if (excess > worst_excess) {
      worst_excess = excess;
      worst = static_cast<int64_t>(i);
    }
  }
  if (worst >= 0) {
    result.ok = false;
    result.problem = "element " + std::to_string(worst) + " is " + format_number(got[worst]) + ", expected " +
                     format_number(want[worst]) + " (rtol " + format_number(tol.rtol) + ", atol " +
                     format_number(tol.atol) + "); largest error " + format_number(result.max_error);
  }
  return result;
}

bool equal_values(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && compare(a, b, 0).ok;
}

std::string describe_tensor(const Tensor& t) {
  std::string text = std::string(dtype_name(t.dtype())) + join(t.sizes());
  if (!t.is_contiguous()) text += " strides " + join(t.strides());
  text += " = [";
  const std::vector<double> values = host_doubles(t);
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()) && i < kShownValues; ++i) {
    text += (i ? ", " : "") + format_number(values[i]);
  }
  if (static_cast<int64_t>(values.size()) > kShownValues) text += ", ... (" + std::to_string(values.size()) + ")";
  return text + "]";
}

}  // namespace ember::conformance
