// The CPU plugin's layout-specific paths against element-by-element
// references: transposing copies (Note [Blocked transpose]) for every
// element size, with partial tiles and blocks and planes around them, and
// reductions of short rows, columns and everything else, in several dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include <ember/ember.h>

namespace {

using ember::DType;
using ember::Tensor;
using Shape = std::vector<int64_t>;

Shape strides_of(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

int64_t numel_of(const Shape& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// x.permute(order).contiguous(), element by element from x's row-major values.
std::vector<double> permuted(const std::vector<double>& values, const Shape& shape, const Shape& order) {
  const Shape in_strides = strides_of(shape);
  Shape out_shape;
  for (const int64_t d : order) out_shape.push_back(shape[d]);
  std::vector<double> out(values.size());
  Shape index(shape.size(), 0);
  for (size_t flat = 0; flat < out.size(); ++flat) {
    int64_t source = 0;
    for (size_t d = 0; d < order.size(); ++d) source += index[d] * in_strides[order[d]];
    out[flat] = values[source];
    for (size_t d = out_shape.size(); d-- > 0;) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST(CpuLayouts, TransposingCopiesMatchElementwise) {
  struct Case {
    Shape shape;
    Shape order;
  };
  const std::vector<Case> cases = {
      {{37, 300}, {1, 0}},           {{300, 1029}, {1, 0}}, {{3, 130, 260}, {0, 2, 1}}, {{20, 30, 140}, {2, 0, 1}},
      {{5, 7, 9, 11}, {3, 1, 0, 2}}, {{8, 8}, {1, 0}},      {{1, 129}, {1, 0}}};
  for (const Case& c : cases) {
    std::vector<double> values(static_cast<size_t>(numel_of(c.shape)));
    // Small integers, exact in every dtype below.
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i * 7 % 101) - 50;
    for (const DType dtype : {DType::Int8, DType::BFloat16, DType::Float32, DType::Float64, DType::Int64}) {
      SCOPED_TRACE(std::to_string(c.shape.size()) + "-d shape starting " + std::to_string(c.shape[0]) + ", " +
                   std::string(ember::dtype_name(dtype)));
      const Tensor x = ember::tensor<double>(values, c.shape).to(dtype);
      const Tensor y = x.permute(c.order).contiguous();
      EXPECT_EQ(y.tolist<double>(), permuted(values, c.shape, c.order));
    }
  }
}

// The reduction of x (row-major `values` of `shape`) over `dims`, in double.
std::vector<double> reference_reduce(const std::vector<double>& values, const Shape& shape, const Shape& dims,
                                     bool max) {
  Shape out_shape = shape;
  for (const int64_t d : dims) out_shape[d] = 1;
  const Shape out_strides = strides_of(out_shape);
  std::vector<double> out(static_cast<size_t>(numel_of(out_shape)),
                          max ? -std::numeric_limits<double>::infinity() : 0.0);
  Shape index(shape.size(), 0);
  for (const double v : values) {
    int64_t target = 0;
    for (size_t d = 0; d < shape.size(); ++d) target += (out_shape[d] == 1 ? 0 : index[d]) * out_strides[d];
    double& slot = out[static_cast<size_t>(target)];
    slot = max ? std::max(slot, v) : slot + v;
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

TEST(CpuLayouts, ReductionsOfEveryLayoutMatchElementwise) {
  struct Case {
    Shape shape;
    Shape dims;
  };
  // Short rows (one transposed group, several, a partial one, a kept dim
  // around them), columns, long rows, and mixed layouts.
  const std::vector<Case> cases = {{{200, 16}, {1}}, {{3, 70, 5}, {2}},      {{1000, 64}, {1}},
                                   {{64, 65}, {1}},  {{16, 3000}, {0}},      {{300, 17, 9}, {0, 2}},
                                   {{9, 4000}, {1}}, {{5, 6, 7, 8}, {1, 3}}, {{2, 300, 3}, {1}}};
  for (const Case& c : cases) {
    std::vector<double> values(static_cast<size_t>(numel_of(c.shape)));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i * 13 % 97) - 48;
    for (const DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int32}) {
      SCOPED_TRACE(std::to_string(c.shape.size()) + "-d shape starting " + std::to_string(c.shape[0]) + ", " +
                   std::string(ember::dtype_name(dtype)));
      const Tensor x = ember::tensor<double>(values, c.shape).to(dtype);
      // Integer-valued sums below 2^24 are exact in float32; bfloat16 sums
      // accumulate in float32 and round once to bfloat16.
      const double tolerance = dtype == DType::BFloat16 ? 1e-2 : 0.0;
      const std::vector<double> sums = ember::sum(x, c.dims, true).tolist<double>();
      const std::vector<double> want_sums = reference_reduce(values, c.shape, c.dims, false);
      ASSERT_EQ(sums.size(), want_sums.size());
      for (size_t i = 0; i < sums.size(); ++i) {
        EXPECT_NEAR(sums[i], want_sums[i], tolerance * std::max(1.0, std::fabs(want_sums[i]))) << "sum " << i;
      }
      EXPECT_EQ(ember::amax(x, c.dims, true).tolist<double>(), reference_reduce(values, c.shape, c.dims, true));
    }
  }
}

// Short rows whose kept dims do not merge (every other row of a 3-d tensor).
TEST(CpuLayouts, ShortRowsOfAStridedTensor) {
  std::vector<double> values(3 * 70 * 5);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 89);
  const Tensor x = ember::tensor<double>(values, {3, 70, 5}).to(DType::Float32).slice(1, 0, std::nullopt, 2);
  ASSERT_FALSE(x.is_contiguous());
  const std::vector<double> rows = x.tolist<double>();
  EXPECT_EQ(ember::sum(x, {2}, true).tolist<double>(), reference_reduce(rows, {3, 35, 5}, {2}, false));
  EXPECT_EQ(ember::amax(x, {2}, true).tolist<double>(), reference_reduce(rows, {3, 35, 5}, {2}, true));
}

// A NaN in a short row makes its maximum NaN and leaves its neighbours'.
TEST(CpuLayouts, ShortRowMaximumPropagatesNaN) {
  std::vector<float> values(100 * 16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 16);
  values[5 * 16 + 3] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> got = ember::amax(ember::tensor<float>(values, {100, 16}), {1}).tolist<float>();
  for (size_t row = 0; row < got.size(); ++row) {
    if (row == 5) {
      EXPECT_TRUE(std::isnan(got[row]));
    } else {
      EXPECT_EQ(got[row], 15.0f) << row;
    }
  }
}

}  // namespace
