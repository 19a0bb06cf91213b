// Inputs and comparisons shared by the functional-op tests.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <ember/ember.h>

namespace ember::testing {

// ((i*i + i*a + b) mod 23 - 11) / 8: varied values, exact in float32;
// mirrored by pattern() in oracle/make_functional_expectations.py.
inline Tensor pattern(const std::vector<int64_t>& shape, int64_t a = 7, int64_t b = 3) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(((i * i + i * a + b) % 23 - 11) / 8.0);
  return tensor<float>(v, shape);
}

inline void expect_close(const Tensor& got, const std::vector<int64_t>& shape, const std::vector<double>& want,
                         double tol = 1e-5) {
  EXPECT_EQ(got.sizes().vec(), shape);
  const std::vector<double> g = got.tolist<double>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(g[i])) << "element " << i << " is " << g[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(g[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(g[i], want[i], tol * std::max(1.0, std::fabs(want[i]))) << "element " << i;
    }
  }
}

}  // namespace ember::testing
