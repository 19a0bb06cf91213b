#include "input_values.h"

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include <ember/ops.h>

namespace ember::conformance {

namespace {

// The smallest and largest value of an integer dtype.
std::pair<int64_t, int64_t> integer_range(DType dtype) {
  switch (dtype) {
    case DType::Bool: return {0, 1};
    case DType::UInt8: return {0, 255};
    case DType::Int8: return {-128, 127};
    case DType::Int16: return {-32768, 32767};
    case DType::Int32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

std::vector<double> floating_values(Values kind, int64_t n, std::mt19937_64& rng) {
  static const double kSpecial[] = {NAN,  INFINITY, -INFINITY, -0.0, 0.0,  1e30, 1e-30, -1.5,
                                    2.5,  0.5,      -7.0,      65504, 1e-5, 3.0,  -2.0,  1.0};
  std::vector<double> v(static_cast<size_t>(n));
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> positive(0.1, 3.0), near_one(0.5, 1.5), unit(-0.9, 0.9);
  std::uniform_int_distribution<int> small(0, 3), coin(0, 1);
  for (int64_t i = 0; i < n; ++i) {
    double& x = v[static_cast<size_t>(i)];
    switch (kind) {
      case Values::Positive: x = positive(rng); break;
      case Values::NearOne: x = near_one(rng); break;
      case Values::Unit: x = unit(rng); break;
      case Values::SmallNonNegative: x = small(rng); break;
      case Values::Special: x = kSpecial[i % std::size(kSpecial)]; break;
      case Values::Bool: x = coin(rng); break;
      case Values::NonZero:
        do x = normal(rng);
        while (std::abs(x) < 0.1);
        break;
      default: x = normal(rng); break;
    }
  }
  return v;
}

std::vector<int64_t> integer_values(Values kind, DType dtype, int64_t n, std::mt19937_64& rng) {
  const auto [lo, hi] = integer_range(dtype);
  const bool is_unsigned = lo == 0;
  auto uniform = [&rng](int64_t a, int64_t b) { return std::uniform_int_distribution<int64_t>(a, b)(rng); };
  const int64_t special[] = {lo, hi, is_unsigned ? 2 : -1, 0, 1, lo + 1, hi - 1, 2, is_unsigned ? 3 : -2, 7};
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t& x = v[static_cast<size_t>(i)];
    if (dtype == DType::Bool) {
      x = kind == Values::Special ? i % 2 : uniform(0, 1);
      continue;
    }
    switch (kind) {
      case Values::Positive: x = uniform(1, 20); break;
      case Values::NearOne: x = is_unsigned ? uniform(0, 3) : uniform(-2, 2); break;
      case Values::Unit: x = is_unsigned ? uniform(0, 1) : uniform(-1, 1); break;
      case Values::SmallNonNegative: x = uniform(0, 3); break;
      case Values::Special: x = special[i % std::size(special)]; break;
      case Values::Bool: x = uniform(0, 1); break;
      case Values::NonZero:
        do x = is_unsigned ? uniform(1, 40) : uniform(-20, 20);
        while (x == 0);
        break;
      default: x = is_unsigned ? uniform(0, 40) : uniform(-20, 20); break;
    }
  }
  return v;
}

}  // namespace

uint64_t seed_for(const std::string& op, const std::string& variation, size_t input) {
  return std::hash<std::string>{}(op + "/" + variation) * 31 + input;
}

Tensor make_input(const InputSpec& spec, DType case_dtype, uint64_t seed) {
  const DType dtype = spec.dtype.value_or(case_dtype);
  int64_t n = 1;
  for (int64_t size : spec.shape) n *= size;
  std::mt19937_64 rng(seed);
  if (spec.values == Values::Index) {
    const int64_t low = spec.nonnegative_index ? 0 : -spec.index_limit;
    std::uniform_int_distribution<int64_t> index(low, spec.index_limit - 1);
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t& x : v) x = index(rng);
    return tensor<int64_t>(v, spec.shape).to(dtype);
  }
  if (is_floating(dtype)) return tensor<double>(floating_values(spec.values, n, rng), spec.shape).to(dtype);
  return tensor<int64_t>(integer_values(spec.values, dtype, n, rng), spec.shape).to(dtype);
}

}  // namespace ember::conformance
