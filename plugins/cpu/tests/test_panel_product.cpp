// The register-tile products of Note [Panel products], every tile this CPU
// runs, against a double-precision sum: left operands row-major and
// transposed, right operands in place and packed (transposed, scaled,
// ending inside a panel), c overwritten or accumulated into, and shapes
// that end inside a tile's rows and panels.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../kernels/panel_product.h"

namespace ember::cpu {
namespace {

struct Case {
  int64_t m, n, k;
  bool a_transposed, b_transposed, accumulate;
  float multiplier;
};

// A row-major matrix of `rows` x `columns` with rows `row_stride` apart, or
// its transpose's storage, as a strided view of `storage`.
StridedMatrix view(const std::vector<float>& storage, int64_t rows, int64_t columns, bool transposed) {
  return transposed ? StridedMatrix{storage.data(), 1, rows} : StridedMatrix{storage.data(), columns, 1};
}

void check(PanelMultiply multiply, const Case& t, std::mt19937& random) {
  std::uniform_real_distribution<float> value(-1, 1);
  std::vector<float> a_storage(static_cast<size_t>(t.m * t.k) + 1);
  std::vector<float> b_storage(static_cast<size_t>(t.k * t.n) + 1);
  for (float& x : a_storage) x = value(random);
  for (float& x : b_storage) x = value(random);
  const StridedMatrix a = view(a_storage, t.m, t.k, t.a_transposed);
  const StridedMatrix b = view(b_storage, t.k, t.n, t.b_transposed);
  std::vector<float> packed;
  const Panels panels = panels_of(b, t.k, t.n, t.multiplier, packed);
  // c's rows are 3 longer than n: the product must leave those alone.
  const int64_t c_row_stride = t.n + 3;
  std::vector<float> c(static_cast<size_t>(t.m * c_row_stride));
  for (float& x : c) x = value(random);
  const std::vector<float> before = c;
  multiply(t.m, t.n, t.k, a, panels, c.data(), c_row_stride, t.accumulate);
  for (int64_t i = 0; i < t.m; ++i) {
    for (int64_t j = 0; j < c_row_stride; ++j) {
      const float got = c[static_cast<size_t>(i * c_row_stride + j)];
      const float old = before[static_cast<size_t>(i * c_row_stride + j)];
      if (j >= t.n) {
        ASSERT_EQ(got, old) << "past the last column at (" << i << ", " << j << ")";
        continue;
      }
      double sum = t.accumulate ? old : 0.0;
      double magnitude = std::abs(sum);
      for (int64_t p = 0; p < t.k; ++p) {
        const double term = double{a.data[i * a.row_stride + p * a.column_stride]} * t.multiplier *
                            b.data[p * b.row_stride + j * b.column_stride];
        sum += term;
        magnitude += std::abs(term);
      }
      ASSERT_NEAR(got, sum, 1e-5 * (magnitude + 1)) << "m " << t.m << " n " << t.n << " k " << t.k << " at (" << i
                                                    << ", " << j << ")";
    }
  }
}

TEST(PanelProduct, EveryTileMatchesTheSum) {
  const std::vector<PanelMultiply> multiplies = panel_multiplies();
  ASSERT_FALSE(multiplies.empty());
  std::mt19937 random(7);
  std::uniform_int_distribution<int64_t> size(1, 140);
  for (size_t tile = 0; tile < multiplies.size(); ++tile) {
    SCOPED_TRACE("tile " + std::to_string(tile));
    // Whole panels in place, and the shapes attention multiplies.
    for (const Case& t : {Case{64, 64, 64, false, false, false, 1.0f}, Case{64, 256, 64, false, true, false, 0.125f},
                          Case{256, 64, 64, true, false, true, 1.0f}, Case{64, 64, 256, false, false, true, 1.0f},
                          Case{0, 32, 5, false, false, false, 1.0f}, Case{3, 32, 0, false, false, true, 1.0f},
                          Case{3, 32, 0, false, false, false, 1.0f}}) {
      check(multiplies[tile], t, random);
    }
    for (int trial = 0; trial < 60; ++trial) {
      const bool whole_panels = trial % 3 == 0;
      const int64_t n = whole_panels ? kPanelWidth * (1 + trial % 4) : size(random);
      check(multiplies[tile],
            Case{size(random), n, size(random) - 1, trial % 2 == 0, trial % 5 == 0, trial % 4 < 2,
                 trial % 7 == 0 ? 0.5f : 1.0f},
            random);
    }
  }
}

}  // namespace
}  // namespace ember::cpu
