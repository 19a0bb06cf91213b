#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
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
using I64 = std::vector<int64_t>;

void expect_values(const Tensor& t, const Shape& shape, const std::vector<double>& want, double rtol = 1e-6) {
  EXPECT_EQ(t.sizes().vec(), shape);
  const std::vector<double> got = t.tolist<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], rtol * std::max(1.0, std::fabs(want[i]))) << "element " << i;
  }
}

Tensor idx(const I64& v) { return ember::tensor<int64_t>(v); }

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// A [2,3], B [3,2]
Tensor mat_a() { return ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}); }
Tensor mat_b() { return ember::tensor<float>({7, 8, 9, 10, 11, 12}, {3, 2}); }

TEST(Matmul, HandValues) {
  Tensor out = ember::mm(mat_a(), mat_b());
  EXPECT_EQ(out.dtype(), DType::Float32);
  expect_values(out, {2, 2}, {58, 64, 139, 154});
}

TEST(Matmul, TransposedOperand) {
  Tensor bt = ember::tensor<float>({7, 9, 11, 8, 10, 12}, {2, 3}).t();
  ASSERT_FALSE(bt.is_contiguous());
  expect_values(ember::mm(mat_a(), bt), {2, 2}, {58, 64, 139, 154});
  expect_values(ember::mm(mat_b().t(), mat_a().t()), {2, 2}, {58, 139, 64, 154});
}

TEST(Matmul, Bmm) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0};
  std::vector<float> b = {7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6};
  Tensor out = ember::bmm(ember::tensor<float>(a, {2, 2, 3}), ember::tensor<float>(b, {2, 3, 2}));
  expect_values(out, {2, 2, 2}, {58, 64, 139, 154, 1, 2, 3, 4});
  expect_error([&] { ember::bmm(mat_a(), mat_b()); }, ErrorKind::Runtime, "3-D");
}

TEST(Matmul, EmptyInnerDimGivesZeros) {
  Tensor out = ember::mm(ember::empty({2, 0}), ember::empty({0, 3}));
  expect_values(out, {2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor bout = ember::bmm(ember::empty({2, 2, 0}), ember::empty({2, 0, 2}));
  expect_values(bout, {2, 2, 2}, std::vector<double>(8, 0.0));
  EXPECT_EQ(ember::bmm(ember::empty({0, 2, 3}), ember::empty({0, 3, 4})).sizes().vec(), (Shape{0, 2, 4}));
}

TEST(Matmul, BFloat16CloseToFloat32) {
  Tensor a = ember::tensor<float>(random_floats(16 * 24, 1), {16, 24});
  Tensor b = ember::tensor<float>(random_floats(24 * 8, 2), {24, 8});
  Tensor ref = ember::mm(a.to(DType::BFloat16).to(DType::Float32), b.to(DType::BFloat16).to(DType::Float32));
  Tensor out = ember::mm(a.to(DType::BFloat16), b.to(DType::BFloat16));
  EXPECT_EQ(out.dtype(), DType::BFloat16);
  const std::vector<float> got = out.tolist<float>();
  const std::vector<float> want = ref.tolist<float>();
  float scale = 0.f;
  for (float w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-2f * std::max(std::fabs(want[i]), 0.1f * scale)) << "element " << i;
  }
}

TEST(Matmul, Float64) {
  Tensor out = ember::mm(mat_a().to(DType::Float64), mat_b().to(DType::Float64));
  EXPECT_EQ(out.dtype(), DType::Float64);
  expect_values(out, {2, 2}, {58, 64, 139, 154}, 1e-12);
  Tensor x = ember::tensor<double>({1.0 + 1e-10, 1.0}, {1, 2});
  Tensor y = ember::tensor<double>({1.0, -1.0}, {2, 1});
  EXPECT_NEAR(ember::mm(x, y).item<double>(), 1e-10, 1e-15);
}

TEST(Matmul, LargerRandomAgainstNaiveLoop) {
  const int64_t M = 64, K = 48, N = 32;
  const std::vector<float> a = random_floats(M * K, 7);
  const std::vector<float> b = random_floats(K * N, 8);
  const std::vector<float> got =
      ember::mm(ember::tensor<float>(a, {M, K}), ember::tensor<float>(b, {K, N})).tolist<float>();
  ASSERT_EQ(got.size(), static_cast<size_t>(M * N));
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += static_cast<double>(a[i * K + k]) * b[k * N + j];
      EXPECT_NEAR(got[i * N + j], acc, 1e-4) << "at (" << i << ", " << j << ")";
    }
  }
}

// float32 takes oneDNN's sgemm or matmul primitive depending on layout;
// float64 takes the plugin's own loop. Both must agree on every layout.
TEST(Matmul, Float32LayoutsAgreeWithFloat64Loop) {
  const Tensor big = ember::tensor<float>(random_floats(7 * 9, 3), {7, 9});
  const Tensor other = ember::tensor<float>(random_floats(9 * 8, 4), {9, 8});
  const std::vector<std::pair<Tensor, Tensor>> cases = {
      {big.slice(1, 2, 6), other.slice(0, 2, 6)},             // row-major, leading dim wider than the view
      {big.t().slice(0, 1, 5), big.slice(1, 0, 4)},           // transposed left operand
      {big.slice(0, 0, 1), other},                            // one row
      {big, other.slice(1, 3, 4)},                            // one column
      {big.slice(1, 0, 9, 2), other.slice(0, 0, 9, 2)},       // stepped: neither row- nor column-major
      {other.t().slice(0, 0, 3), other.t().t().slice(1, 0, 2)},
  };
  for (const auto& [a, b] : cases) {
    const Tensor got = ember::mm(a, b).to(DType::Float64);
    const Tensor want = ember::mm(a.to(DType::Float64), b.to(DType::Float64));
    const auto g = got.tolist<double>();
    const auto w = want.tolist<double>();
    ASSERT_EQ(g.size(), w.size());
    for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-4 * (1 + std::abs(w[i]))) << shape_str(a.sizes());
  }
}

// Zero strides (an expanded gradient) take contiguous copies, not oneDNN's
// reference kernel; the result must not change.
TEST(Matmul, ExpandedOperandsMatchContiguousOnes) {
  const Tensor a = ember::tensor<float>(random_floats(3 * 4, 5), {1, 3, 4}).expand({2, 3, 4});
  const Tensor b = ember::tensor<float>(random_floats(4, 6), {1, 4, 1}).expand({2, 4, 5});
  const auto got = ember::bmm(a, b).tolist<float>();
  const auto want = ember::bmm(a.contiguous(), b.contiguous()).tolist<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  const auto row = ember::mm(a.select(0, 0).slice(0, 0, 1).expand({3, 4}), b.select(0, 1)).tolist<float>();
  const auto row_want = ember::mm(a.select(0, 0).slice(0, 0, 1).expand({3, 4}).contiguous(), b.select(0, 1).contiguous())
                            .tolist<float>();
  for (size_t i = 0; i < row.size(); ++i) EXPECT_NEAR(row[i], row_want[i], 1e-5) << i;
}

TEST(Matmul, Errors) {
  expect_error([] { ember::mm(mat_a(), mat_a()); }, ErrorKind::Runtime, "[2, 3]");
  expect_error([] { ember::mm(mat_a(), mat_b().to(DType::Float64)); }, ErrorKind::Runtime, "float64");
  expect_error([] { ember::mm(mat_a(), ember::ones({3})); }, ErrorKind::Runtime, "2-D");
}

TEST(IndexSelect, Dims0And1) {
  Tensor x = ember::tensor<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  expect_values(ember::index_select(x, 0, idx({2, 0, 2})), {3, 3}, {7, 8, 9, 1, 2, 3, 7, 8, 9});
  expect_values(ember::index_select(x, 1, idx({1})), {3, 1}, {2, 5, 8});
  expect_values(ember::index_select(x, -1, idx({2, 0})), {3, 2}, {3, 1, 6, 4, 9, 7});
  expect_values(ember::index_select(x, 0, ember::tensor<int32_t>({1})), {1, 3}, {4, 5, 6});
  expect_values(ember::index_select(x.t(), 0, idx({0})), {1, 3}, {1, 4, 7});
  EXPECT_EQ(ember::index_select(x, 0, idx({})).sizes().vec(), (Shape{0, 3}));
}

TEST(IndexSelect, OutOfRange) {
  Tensor x = ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor bad = idx({0, 17});
  const uint64_t before = ember::memory_stats(ember::Device("cpu")).allocated;
  Tensor out;
  expect_error([&] { out = ember::index_select(x, 0, bad); }, ErrorKind::Index, "17");
  EXPECT_FALSE(out.defined());
  EXPECT_EQ(ember::memory_stats(ember::Device("cpu")).allocated, before);
  expect_error([&] { ember::index_select(x, 1, idx({-4})); }, ErrorKind::Index, "-4");
  expect_error([&] { ember::index_select(x, 0, ember::tensor<float>({0})); }, ErrorKind::Runtime, "index");
}

TEST(Gather, AlongBothDims) {
  Tensor x = ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor i1 = ember::tensor<int64_t>({2, 0, 1, 1}, {2, 2});
  expect_values(ember::gather(x, 1, i1), {2, 2}, {3, 1, 5, 5});
  Tensor i0 = ember::tensor<int64_t>({1, 0, 1}, {1, 3});
  expect_values(ember::gather(x, 0, i0), {1, 3}, {4, 2, 6});
  expect_values(ember::gather(x, 1, ember::tensor<int64_t>({2}, {1, 1})), {1, 1}, {3});
  expect_error([&] { ember::gather(x, 1, ember::tensor<int64_t>({3}, {1, 1})); }, ErrorKind::Runtime, "3");
  expect_error([&] { ember::gather(x, 1, ember::zeros({3, 1}, DType::Int64)); }, ErrorKind::Runtime, "[3, 1]");
}

TEST(ScatterAdd, RepeatedIndicesAccumulate) {
  Tensor x = ember::zeros({2, 3});
  Tensor index = ember::tensor<int64_t>({0, 0, 2, 1, 1, 1}, {2, 3});
  Tensor src = ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor out = ember::scatter_add(x, 1, index, src);
  expect_values(out, {2, 3}, {3, 0, 3, 0, 15, 0});
  expect_values(x, {2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor base = ember::ones({3});
  Tensor out0 = ember::scatter_add(base, 0, idx({2, 2, 0, 2}), ember::tensor<float>({1, 1, 5, 1}));
  expect_values(out0, {3}, {6, 1, 4});
  Tensor i64s = ember::scatter_add(ember::zeros({2}, DType::Int64), 0, idx({1, 1}), ember::tensor<int64_t>({5, 7}));
  EXPECT_EQ(i64s.tolist<int64_t>(), (I64{0, 12}));
  expect_error([&] { ember::scatter_add(base, 0, idx({3}), ember::ones({1})); }, ErrorKind::Runtime, "3");
}

TEST(Cat, Dims) {
  Tensor a = ember::tensor<float>({1, 2, 3, 4}, {2, 2});
  Tensor b = ember::tensor<float>({5, 6}, {1, 2});
  expect_values(ember::cat({a, b}, 0), {3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor c = ember::tensor<float>({7, 8}, {2, 1});
  expect_values(ember::cat({a, c}, 1), {2, 3}, {1, 2, 7, 3, 4, 8});
  expect_values(ember::cat({a, c}, -1), {2, 3}, {1, 2, 7, 3, 4, 8});
  expect_values(ember::cat({a.t(), b}, 0), {3, 2}, {1, 3, 2, 4, 5, 6});
}

TEST(Cat, PromotesAndSkipsEmpty) {
  Tensor mixed = ember::cat({ember::tensor<int32_t>({1, 2}), ember::tensor<float>({0.5f})});
  EXPECT_EQ(mixed.dtype(), DType::Float32);
  expect_values(mixed, {3}, {1, 2, 0.5});
  Tensor ints = ember::cat({ember::tensor<int8_t>({1}), ember::tensor<uint8_t>({200})});
  EXPECT_EQ(ints.dtype(), DType::Int16);
  EXPECT_EQ(ints.tolist<int16_t>(), (std::vector<int16_t>{1, 200}));
  Tensor m = ember::tensor<float>({1, 2, 3, 4}, {2, 2});
  expect_values(ember::cat({ember::empty({0}), m, ember::empty({0})}, 0), {2, 2}, {1, 2, 3, 4});
  expect_values(ember::cat({ember::zeros({0, 2}), m}, 0), {2, 2}, {1, 2, 3, 4});
}

TEST(Cat, Errors) {
  Tensor a = ember::zeros({2, 2});
  expect_error([&] { ember::cat({a, ember::zeros({2, 3})}, 0); }, ErrorKind::Runtime, "Expected size 2 but got size 3");
  expect_error([&] { ember::cat({a, ember::zeros({2})}, 0); }, ErrorKind::Runtime, "same number of dimensions");
  expect_error([] { ember::cat({}, 0); }, ErrorKind::Value, "non-empty");
  expect_error([&] { ember::cat({a, a}, 2); }, ErrorKind::Index, "out of range");
}

}  // namespace
