#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "expect_error.h"

namespace {

using ember::testing::expect_error;

using ember::DType;
using ember::ErrorKind;
using ember::Tensor;
using ::testing::HasSubstr;
using Shape = std::vector<int64_t>;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

void expect_floats(const Tensor& t, const Shape& shape, const std::vector<float>& want) {
  EXPECT_EQ(t.sizes().vec(), shape);
  const std::vector<float> got = t.tolist<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i];
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-5f * std::max(1.0f, std::fabs(want[i]))) << "element " << i;
    }
  }
}

// [[1, 2, 3], [4, 5, 6]]
Tensor m23() { return ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}); }

// shape [2, 3, 4] holding 0..23
Tensor cube() {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[i] = static_cast<float>(i);
  return ember::tensor<float>(v, {2, 3, 4});
}

TEST(Reduction, SumAllAndOneDim) {
  Tensor x = m23();
  Tensor all = ember::sum(x);
  EXPECT_EQ(all.dim(), 0);
  EXPECT_EQ(all.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(all.item<float>(), 21.f);
  expect_floats(ember::sum(x, {0}), {3}, {5, 7, 9});
  expect_floats(ember::sum(x, {1}), {2}, {6, 15});
  expect_floats(ember::sum(x, {-1}), {2}, {6, 15});
  expect_floats(ember::sum(x, {1}, true), {2, 1}, {6, 15});
  expect_floats(ember::sum(x, {}, true), {1, 1}, {21});
}

TEST(Reduction, SeveralDims) {
  Tensor c = cube();
  expect_floats(ember::sum(c, {0, 2}), {3}, {60, 92, 124});
  expect_floats(ember::sum(c, {-1, 0}, true), {1, 3, 1}, {60, 92, 124});
  expect_floats(ember::amax(c, {1, 2}), {2}, {11, 23});
  expect_floats(ember::mean(c, {0, 1}), {4}, {10, 11, 12, 13});
}

TEST(Reduction, ProdMeanAmaxAmin) {
  Tensor x = m23();
  EXPECT_FLOAT_EQ(ember::prod(x).item<float>(), 720.f);
  expect_floats(ember::prod(x, {1}), {2}, {6, 120});
  EXPECT_FLOAT_EQ(ember::mean(x).item<float>(), 3.5f);
  expect_floats(ember::mean(x, {0}, true), {1, 3}, {2.5f, 3.5f, 4.5f});
  EXPECT_FLOAT_EQ(ember::amax(x).item<float>(), 6.f);
  EXPECT_FLOAT_EQ(ember::amin(x).item<float>(), 1.f);
  expect_floats(ember::amax(x, {0}), {3}, {4, 5, 6});
  expect_floats(ember::amin(x, {-1}, true), {2, 1}, {1, 4});
  expect_floats(ember::amax(ember::tensor<float>({1, kNaN, 3}, {1, 3}), {1}), {1}, {kNaN});
  expect_floats(ember::amin(ember::tensor<float>({1, kNaN, 3, 0}, {2, 2}), {1}), {2}, {kNaN, 0});
  EXPECT_FLOAT_EQ(ember::max(x).item<float>(), 6.f);
  EXPECT_FLOAT_EQ(ember::min(x).item<float>(), 1.f);
}

TEST(Reduction, IntegerResultsAreInt64) {
  Tensor x = ember::tensor<int32_t>({1, 2, 3, 4}, {2, 2});
  Tensor s = ember::sum(x);
  EXPECT_EQ(s.dtype(), DType::Int64);
  EXPECT_EQ(s.item<int64_t>(), 10);
  EXPECT_EQ(ember::sum(x, {0}).tolist<int64_t>(), (std::vector<int64_t>{4, 6}));
  Tensor p = ember::prod(ember::tensor<int8_t>({100, 100, 100}));
  EXPECT_EQ(p.dtype(), DType::Int64);
  EXPECT_EQ(p.item<int64_t>(), 1000000);
  Tensor bs = ember::sum(ember::tensor<bool>({true, true, false}));
  EXPECT_EQ(bs.dtype(), DType::Int64);
  EXPECT_EQ(bs.item<int64_t>(), 2);
  Tensor mx = ember::amax(ember::tensor<int8_t>({-3, 7, 2}));
  EXPECT_EQ(mx.dtype(), DType::Int8);
  EXPECT_EQ(mx.item<int8_t>(), 7);
  Tensor wide = ember::sum(ember::full({3}, 2000000000, DType::Int32));
  EXPECT_EQ(wide.item<int64_t>(), 6000000000LL);
  EXPECT_EQ(ember::sum(x, {}, false, DType::Float64).dtype(), DType::Float64);
  expect_error([&] { ember::mean(x); }, ErrorKind::Runtime, "int32");
}

TEST(Reduction, EmptyReductions) {
  Tensor e = ember::zeros({0, 3});
  EXPECT_FLOAT_EQ(ember::sum(e).item<float>(), 0.f);
  expect_floats(ember::sum(e, {0}), {3}, {0, 0, 0});
  EXPECT_FLOAT_EQ(ember::prod(e).item<float>(), 1.f);
  expect_floats(ember::prod(e, {0}), {3}, {1, 1, 1});
  EXPECT_TRUE(std::isnan(ember::mean(e).item<float>()));
  expect_floats(ember::mean(e, {0}), {3}, {kNaN, kNaN, kNaN});
  EXPECT_EQ(ember::sum(e, {1}).sizes().vec(), (Shape{0}));
  EXPECT_EQ(ember::amax(e, {1}).sizes().vec(), (Shape{0}));
  EXPECT_EQ(ember::sum(ember::zeros({0}, DType::Int32)).item<int64_t>(), 0);
  expect_error([&] { ember::amax(e); }, ErrorKind::Runtime, "numel() == 0");
  expect_error([&] { ember::amin(e, {0}); }, ErrorKind::Index, "amin");
  expect_error([&] { ember::argmax(e); }, ErrorKind::Index, "argmax");
}

TEST(Reduction, ArgmaxArgmin) {
  Tensor x = ember::tensor<float>({3, 1, 3, 0, 5, 5}, {2, 3});
  Tensor flat = ember::argmax(x);
  EXPECT_EQ(flat.dtype(), DType::Int64);
  EXPECT_EQ(flat.dim(), 0);
  EXPECT_EQ(flat.item<int64_t>(), 4);
  EXPECT_EQ(ember::argmin(x).item<int64_t>(), 3);
  EXPECT_EQ(ember::argmax(x, 1).tolist<int64_t>(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ember::argmin(x, 0).tolist<int64_t>(), (std::vector<int64_t>{1, 0, 0}));
  Tensor kept = ember::argmax(x, -1, true);
  EXPECT_EQ(kept.sizes().vec(), (Shape{2, 1}));
  EXPECT_EQ(kept.tolist<int64_t>(), (std::vector<int64_t>{0, 1}));
  Tensor flat_kept = ember::argmax(x, std::nullopt, true);
  EXPECT_EQ(flat_kept.sizes().vec(), (Shape{1, 1}));
  EXPECT_EQ(flat_kept.item<int64_t>(), 4);
  Tensor with_nan = ember::tensor<float>({1, kNaN, 7, kNaN});
  EXPECT_EQ(ember::argmax(with_nan).item<int64_t>(), 1);
  EXPECT_EQ(ember::argmin(with_nan).item<int64_t>(), 1);
  EXPECT_EQ(ember::argmax(ember::tensor<int32_t>({2, 9, 9, -1})).item<int64_t>(), 1);
  expect_error([] { ember::argmax(ember::tensor<bool>({true})); }, ErrorKind::NotImplemented, "bool");
}

TEST(Reduction, MaxMinWithDim) {
  Tensor x = ember::tensor<float>({3, 8, 8, 0, -1, 0}, {2, 3});
  ember::ValuesIndices r = ember::max(x, 1);
  expect_floats(r.values, {2}, {8, 0});
  EXPECT_EQ(r.indices.dtype(), DType::Int64);
  EXPECT_EQ(r.indices.tolist<int64_t>(), (std::vector<int64_t>{1, 0}));
  ember::ValuesIndices k = ember::min(x, 0, true);
  expect_floats(k.values, {1, 3}, {0, -1, 0});
  EXPECT_EQ(k.indices.sizes().vec(), (Shape{1, 3}));
  EXPECT_EQ(k.indices.tolist<int64_t>(), (std::vector<int64_t>{1, 1, 1}));
}

TEST(Reduction, NonContiguousInput) {
  Tensor p = cube().permute({2, 0, 1});
  ASSERT_FALSE(p.is_contiguous());
  expect_floats(ember::sum(p, {0}), {2, 3}, {6, 22, 38, 54, 70, 86});
  expect_floats(ember::amax(p, {1, 2}), {4}, {20, 21, 22, 23});
  EXPECT_EQ(ember::argmax(p, 0).tolist<int64_t>(), (std::vector<int64_t>{3, 3, 3, 3, 3, 3}));
  EXPECT_EQ(ember::argmin(p).item<int64_t>(), 0);
  EXPECT_EQ(ember::argmax(p).item<int64_t>(), 23);
  Tensor t = m23().t();
  expect_floats(ember::sum(t, {1}), {3}, {5, 7, 9});
  expect_floats(ember::prod(t, {0}), {2}, {6, 120});
}

TEST(Reduction, LargeFloatSumIsAccurate) {
  const int64_t n = 1000000;
  Tensor x = ember::full({n}, 0.1f, DType::Float32);
  const double expected = static_cast<double>(0.1f) * n;
  const double got = ember::sum(x).item<float>();
  EXPECT_LT(std::fabs(got - expected) / expected, 1e-5) << "sum = " << got;
  const double mean = ember::mean(x).item<float>();
  EXPECT_LT(std::fabs(mean - 0.1) / 0.1, 1e-5) << "mean = " << mean;
}

TEST(Reduction, LargeInputs) {
  const int64_t n = 1000000;
  std::vector<float> v(n, 0.f);
  v[777777] = 5.f;
  v[999999] = 5.f;
  v[12] = -5.f;
  v[500000] = -5.f;
  Tensor x = ember::tensor<float>(v);
  EXPECT_EQ(ember::argmax(x).item<int64_t>(), 777777);
  EXPECT_EQ(ember::argmin(x).item<int64_t>(), 12);
  EXPECT_FLOAT_EQ(ember::amax(x).item<float>(), 5.f);
  v[654321] = kNaN;
  Tensor with_nan = ember::tensor<float>(v);
  EXPECT_EQ(ember::argmax(with_nan).item<int64_t>(), 654321);
  EXPECT_TRUE(std::isnan(ember::amin(with_nan).item<float>()));
  Tensor grid = ember::arange(0, 1000 * 513, 1, DType::Float64).view({1000, 513});
  const std::vector<double> cols = ember::sum(grid, {0}).tolist<double>();
  ASSERT_EQ(cols.size(), 513u);
  for (int64_t j = 0; j < 513; ++j) EXPECT_DOUBLE_EQ(cols[j], 513.0 * 999 * 1000 / 2 + 1000.0 * j) << j;
  const std::vector<double> rows = ember::sum(grid.t(), {0}).tolist<double>();
  ASSERT_EQ(rows.size(), 1000u);
  for (int64_t i = 0; i < 1000; ++i) EXPECT_DOUBLE_EQ(rows[i], 513.0 * 513 * i + 512.0 * 513 / 2) << i;
}

TEST(Reduction, HalfSumAccumulatesInFloat32) {
  Tensor h = ember::full({1000}, 0.1, DType::Float16);
  Tensor s = ember::sum(h);
  EXPECT_EQ(s.dtype(), DType::Float16);
  EXPECT_FLOAT_EQ(s.item<float>(), 100.f);
  Tensor bf = ember::full({4096}, 1.0, DType::BFloat16);
  EXPECT_FLOAT_EQ(ember::sum(bf).item<float>(), 4096.f);
  EXPECT_FLOAT_EQ(ember::mean(bf).item<float>(), 1.f);
}

TEST(Reduction, DimErrors) {
  Tensor x = m23();
  expect_error([&] { ember::sum(x, {0, 0}); }, ErrorKind::Runtime, "appears multiple times");
  expect_error([&] { ember::sum(x, {1, -1}); }, ErrorKind::Runtime, "appears multiple times");
  expect_error([&] { ember::sum(x, {2}); }, ErrorKind::Index, "out of range");
  expect_error([&] { ember::amax(x, {-3}); }, ErrorKind::Index, "out of range");
  expect_error([&] { ember::argmax(x, 5); }, ErrorKind::Index, "out of range");
  expect_error([&] { ember::max(x, 2); }, ErrorKind::Index, "out of range");
}

TEST(Reduction, ZeroDimInput) {
  Tensor s = ember::scalar_tensor(4.5, DType::Float32);
  EXPECT_FLOAT_EQ(ember::sum(s).item<float>(), 4.5f);
  EXPECT_EQ(ember::sum(s).dim(), 0);
  EXPECT_FLOAT_EQ(ember::amax(s, {0}).item<float>(), 4.5f);
  EXPECT_EQ(ember::argmax(s).item<int64_t>(), 0);
}

}  // namespace
