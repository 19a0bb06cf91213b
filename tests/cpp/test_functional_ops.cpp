// Composite ops and the cumsum/sort primitives: hand-computed values,
// shapes (including the meta device), numerical edge cases and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <ember/ember.h>

#include "expect_error.h"
#include "functional_test_util.h"

namespace {

using ember::DType;
using ember::ErrorKind;
using ember::Tensor;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::pattern;
using Shape = std::vector<int64_t>;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor f32(const std::vector<float>& v, const Shape& shape) { return ember::tensor<float>(v, shape); }

TEST(Functional, SoftmaxRowsSumToOneAndLargeLogitsAreStable) {
  const Tensor x = f32({1000, 1001, 1002, -1000, 0, 1000}, {2, 3});
  const Tensor s = ember::softmax(x, 1);
  expect_close(ember::sum(s, {1}), {2}, {1, 1});
  const double e = std::exp(1.0), z = 1 + e + e * e;
  expect_close(s.select(0, 0), {3}, {1 / z, e / z, e * e / z});
  expect_close(ember::log_softmax(x, 1).select(0, 0), {3}, {-std::log(z), 1 - std::log(z), 2 - std::log(z)});
  expect_close(ember::logsumexp(x, {1}), {2}, {1002 + std::log(z) - 2, 1000});
  expect_close(ember::logsumexp(f32({-INFINITY, -INFINITY}, {2}), {0}), {}, {-kInf});
  expect_close(ember::cross_entropy(x, ember::tensor<int64_t>({2, 0}), std::nullopt, -100, "none"), {2},
               {std::log(z) - 2, 2000});
}

TEST(Functional, VarIsTwoPassAndHonoursCorrection) {
  // A large mean would cancel catastrophically in E[x^2] - E[x]^2.
  const Tensor x = f32({10000, 10001, 10002, 10003}, {4});
  expect_close(ember::var(x, {}, 0), {}, {1.25});
  expect_close(ember::var(x), {}, {5.0 / 3});
  expect_close(ember::std(x, {0}, 1, true), {1}, {std::sqrt(5.0 / 3)});
  expect_close(ember::var(f32({3}, {1})), {}, {kNaN});
  expect_error([] { ember::var(ember::tensor<int64_t>({1, 2})); }, ErrorKind::Runtime, "var(): expected a floating");
}

TEST(Functional, ClampAndActivationsByHand) {
  const Tensor x = f32({-2, -0.5, 0, 0.5, 2, NAN}, {6});
  expect_close(ember::clamp(x, -1, 1), {6}, {-1, -0.5, 0, 0.5, 1, kNaN});
  expect_close(ember::clamp(x, std::nullopt, 0.25), {6}, {-2, -0.5, 0, 0.25, 0.25, kNaN});
  expect_close(ember::relu(x), {6}, {0, 0, 0, 0.5, 2, kNaN});
  expect_close(ember::hardtanh(x), {6}, {-1, -0.5, 0, 0.5, 1, kNaN});
  EXPECT_EQ(ember::clamp(ember::tensor<int64_t>({-3, 5}), 0, 2).tolist<int64_t>(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(ember::clamp(ember::tensor<int64_t>({1}), 0.5).dtype(), DType::Float32);
  expect_error([&] { ember::clamp(x, std::nullopt, std::nullopt); }, ErrorKind::Runtime, "at least one");
  expect_error([&] { ember::gelu(x, "fast"); }, ErrorKind::Runtime, "'none' or 'tanh'");
  // The masked branches stay finite for huge inputs.
  expect_close(ember::softplus(f32({1e4, -1e4}, {2})), {2}, {1e4, 0});
  expect_close(ember::elu(f32({1e4, -1e4}, {2})), {2}, {1e4, -1});
}

TEST(Functional, DropoutIsSeededAndScaled) {
  const Tensor x = ember::ones({1000});
  ember::manual_seed(7);
  const Tensor a = ember::dropout(x, 0.25);
  ember::manual_seed(7);
  const Tensor b = ember::dropout(x, 0.25);
  EXPECT_EQ(a.tolist<float>(), b.tolist<float>());
  int kept = 0;
  for (float v : a.tolist<float>()) {
    EXPECT_TRUE(v == 0.0f || std::fabs(v - 4.0f / 3) < 1e-6f) << v;
    kept += v != 0.0f;
  }
  EXPECT_GT(kept, 650);
  EXPECT_LT(kept, 850);
  EXPECT_TRUE(ember::dropout(x, 0.5, false).is_alias_of(x));
  expect_close(ember::sum(ember::dropout(x, 1.0)), {}, {0});
  expect_error([&] { ember::dropout(x, 1.5); }, ErrorKind::Value, "between 0 and 1");
}

TEST(Functional, MatmulShapes) {
  const auto shape = [](const Shape& a, const Shape& b) {
    return ember::matmul(ember::ones(a), ember::ones(b)).sizes().vec();
  };
  EXPECT_EQ(shape({3}, {3}), Shape{});
  EXPECT_EQ(shape({2, 3}, {3}), Shape{2});
  EXPECT_EQ(shape({3}, {3, 4}), Shape{4});
  EXPECT_EQ(shape({2, 3}, {3, 4}), (Shape{2, 4}));
  EXPECT_EQ(shape({5, 2, 3}, {3}), (Shape{5, 2}));
  EXPECT_EQ(shape({3}, {5, 3, 4}), (Shape{5, 4}));
  EXPECT_EQ(shape({7, 1, 2, 3}, {5, 3, 4}), (Shape{7, 5, 2, 4}));
  EXPECT_EQ(shape({5, 2, 3}, {3, 4}), (Shape{5, 2, 4}));
  expect_close(ember::matmul(f32({1, 2, 3}, {3}), f32({4, 5, 6}, {3})), {}, {32});
  expect_close(ember::linear(f32({1, 2}, {1, 2}), f32({1, 0, 0, 1, 1, 1}, {3, 2}), f32({0.5, 0, -1}, {3})), {1, 3},
               {1.5, 2, 2});
  expect_error(
      [] {
        ember::matmul(ember::ones({2, 3}), ember::ones({2, 3}));
      },
      ErrorKind::Runtime, "cannot be multiplied");
  expect_error([] { ember::matmul(ember::ones({2, 2, 3}), ember::ones({3, 3, 1})); }, ErrorKind::Runtime, "matmul");
}

TEST(Functional, EmbeddingAndOneHot) {
  const Tensor w = f32({0, 1, 10, 11, 20, 21}, {3, 2});
  expect_close(ember::embedding(w, ember::tensor<int64_t>({2, 0, 1, 2}, {2, 2})), {2, 2, 2},
               {20, 21, 0, 1, 10, 11, 20, 21});
  const Tensor oh = ember::one_hot(ember::tensor<int64_t>({0, 2, 1}));
  EXPECT_EQ(oh.dtype(), DType::Int64);
  EXPECT_EQ(oh.tolist<int64_t>(), (std::vector<int64_t>{1, 0, 0, 0, 0, 1, 0, 1, 0}));
  EXPECT_EQ(ember::one_hot(ember::tensor<int64_t>({1}), 4).tolist<int64_t>(), (std::vector<int64_t>{0, 1, 0, 0}));
  expect_error([] { ember::one_hot(ember::tensor<int64_t>({3}), 2); }, ErrorKind::Runtime, "out of range");
}

TEST(Functional, ShapeOps) {
  const Tensor x = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  expect_close(ember::stack({x, x * 10}, 1), {2, 2, 3}, {1, 2, 3, 10, 20, 30, 4, 5, 6, 40, 50, 60});
  const auto parts = ember::split(x, 2, 1);
  ASSERT_EQ(parts.size(), 2u);
  expect_close(parts[1], {2, 1}, {3, 6});
  const auto sized = ember::split(x, {1, 2}, 1);
  expect_close(sized[1], {2, 2}, {2, 3, 5, 6});
  EXPECT_EQ(ember::chunk(ember::ones({5}), 3).size(), 3u);
  EXPECT_EQ(ember::chunk(ember::ones({5}), 3)[2].size(0), 1);
  expect_close(ember::flip(x, {0, 1}), {2, 3}, {6, 5, 4, 3, 2, 1});
  expect_close(ember::roll(x, {1}, {1}), {2, 3}, {3, 1, 2, 6, 4, 5});
  expect_close(ember::roll(x, {-1}), {2, 3}, {2, 3, 4, 5, 6, 1});
  expect_close(ember::tril(ember::ones({3, 3})), {3, 3}, {1, 0, 0, 1, 1, 0, 1, 1, 1});
  expect_close(ember::triu(ember::ones({2, 3}), 1), {2, 3}, {0, 1, 1, 0, 0, 1});
  expect_close(ember::masked_fill(x, ember::gt(x, 3), -1), {2, 3}, {1, 2, 3, -1, -1, -1});
  expect_close(ember::where(ember::gt(x, 3), 0.5, x), {2, 3}, {1, 2, 3, 0.5, 0.5, 0.5});
  EXPECT_EQ(ember::where(ember::gt(x, 3), ember::Scalar(1), ember::Scalar(2)).dtype(), DType::Int64);
  expect_close(ember::pad(f32({1, 2}, {1, 2}), {1, 2}, 9), {1, 5}, {9, 1, 2, 9, 9});
  expect_error([&] { ember::split(x, {1, 1}, 1); }, ErrorKind::Runtime, "sum to 3");
  expect_error([&] { ember::stack({x, ember::ones({3})}); }, ErrorKind::Runtime, "equal size");
  expect_error([&] { ember::masked_fill(x, ember::ones({2, 3}), 0); }, ErrorKind::Runtime, "bool mask");
}

// A float beside a float64 tensor went through a float32 0-d tensor, which
// turned 1e300 into inf and rounded 0.1.
TEST(Functional, ScalarsBesideFloat64KeepTheirPrecision) {
  const Tensor x = ember::tensor<double>({1, -1});
  const Tensor filled = ember::where(ember::gt(x, 0.0), 1e300, x);
  EXPECT_EQ(filled.dtype(), DType::Float64);
  EXPECT_EQ(filled.tolist<double>(), (std::vector<double>{1e300, -1}));
  EXPECT_EQ(ember::masked_fill(x, ember::lt(x, 0.0), 0.1).tolist<double>(), (std::vector<double>{1, 0.1}));
  const Tensor zero_d = ember::scalar_tensor(2.0, DType::Float32);
  EXPECT_EQ(ember::where(ember::gt(zero_d, 0.0), zero_d, 0.5).dtype(), DType::Float32);
}

TEST(Functional, PointwiseLossesByHand) {
  const Tensor a = f32({0, 1, 3}, {3}), b = f32({1, 1, 0}, {3});
  expect_close(ember::mse_loss(a, b, "none"), {3}, {1, 0, 9});
  expect_close(ember::l1_loss(a, b), {}, {4.0 / 3});
  expect_close(ember::smooth_l1_loss(a, b, "sum"), {}, {0.5 + 2.5});
  expect_close(ember::binary_cross_entropy(f32({0, 1}, {2}), f32({1, 1}, {2}), std::nullopt, "none"), {2}, {100, 0});
  expect_close(ember::binary_cross_entropy_with_logits(f32({100, -100}, {2}), f32({1, 1}, {2}), std::nullopt, "none"),
               {2}, {0, 100});
  expect_error([&] { ember::mse_loss(a, b, "avg"); }, ErrorKind::Value, "'none', 'mean' or 'sum'");
  expect_error([&] { ember::mse_loss(a, ember::ones({2})); }, ErrorKind::Runtime, "must match input shape");
  expect_error(
      [&] {
        ember::cross_entropy(ember::ones({2, 3}), ember::tensor<int32_t>({0, 1}));
      },
      ErrorKind::Runtime, "int64");
  expect_error([&] { ember::cross_entropy(ember::ones({2, 3}), ember::tensor<int64_t>({0, 1, 2})); }, ErrorKind::Value,
               "expected target of shape [2]");
}

TEST(Functional, ConvAndPoolShapesOnMeta) {
  const ember::TensorOptions meta(DType::Float32, "meta");
  const Tensor x = ember::empty({8, 6, 17, 15}, meta);
  const Tensor w = ember::empty({12, 3, 3, 5}, meta);
  const Tensor y = ember::conv2d(x, w, ember::empty({12}, meta), {2, 1}, {1, 2}, {2, 1}, 2);
  EXPECT_TRUE(y.device().is_meta());
  EXPECT_EQ(y.sizes().vec(), (Shape{8, 12, 8, 15}));
  EXPECT_EQ(ember::conv1d(ember::empty({2, 4, 9}, meta), ember::empty({5, 4, 3}, meta), std::nullopt, {2}).sizes().vec(),
            (Shape{2, 5, 4}));
  EXPECT_EQ(ember::max_pool2d(x, {3}, {2}, {1}).sizes().vec(), (Shape{8, 6, 9, 8}));
  EXPECT_EQ(ember::avg_pool2d(x, {2, 3}, {}, {0}, false).sizes().vec(), (Shape{8, 6, 8, 5}));
  EXPECT_EQ(ember::adaptive_avg_pool2d(x, {4}).sizes().vec(), (Shape{8, 6, 4, 4}));
  EXPECT_EQ(ember::conv2d(ember::empty({6, 17, 15}, meta), w, std::nullopt, {1}, {1}, {1}, 2).sizes().vec(),
            (Shape{12, 17, 13}));
  expect_error([&] { ember::conv2d(x, ember::empty({12, 4, 3, 3}, meta)); }, ErrorKind::Runtime, "groups=1");
  expect_error([&] { ember::max_pool2d(x, {2}, {}, {2}); }, ErrorKind::Runtime, "at most half");
  expect_error(
      [&] {
        ember::conv2d(ember::empty({1, 1, 2, 2}, meta), ember::empty({1, 1, 3, 3}, meta));
      },
      ErrorKind::Runtime, "is smaller than the kernel [3, 3] dilated by [1, 1]");
}

TEST(Functional, ConvByHand) {
  // 1x1 channel, 3x3 input, 2x2 ones kernel, padding 1: window sums.
  const Tensor x = f32({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  expect_close(ember::conv2d(x, ember::ones({1, 1, 2, 2}), std::nullopt, {2}, {1}), {1, 1, 2, 2}, {1, 5, 11, 28});
  expect_close(ember::max_pool2d(x, {2}, {1}), {1, 1, 2, 2}, {5, 6, 8, 9});
  expect_close(ember::adaptive_avg_pool2d(x, {1}), {1, 1, 1, 1}, {5});
}

TEST(Functional, NormalizationErrors) {
  expect_error([] { ember::layer_norm(ember::ones({2, 3}), {2}); }, ErrorKind::Runtime, "suffix");
  expect_error([] { ember::group_norm(ember::ones({2, 3, 4}), 2); }, ErrorKind::Runtime, "divisible by num_groups");
  expect_error([] { ember::batch_norm(ember::ones({1, 3}), std::nullopt, std::nullopt, std::nullopt, std::nullopt, true); },
               ErrorKind::Value, "more than 1 value per channel");
  expect_error(
      [] {
        ember::batch_norm(ember::ones({2, 3}), std::nullopt, std::nullopt);
      },
      ErrorKind::Runtime, "evaluation mode");
}

TEST(Primitives, Cumsum) {
  expect_close(ember::cumsum(f32({1, 2, 3, 4, 5, 6}, {2, 3}), 1), {2, 3}, {1, 3, 6, 4, 9, 15});
  expect_close(ember::cumsum(f32({1, 2, 3, 4, 5, 6}, {2, 3}).t(), 0), {3, 2}, {1, 4, 3, 9, 6, 15});
  const Tensor ints = ember::cumsum(ember::tensor<int32_t>({1, -2, 3}), 0);
  EXPECT_EQ(ints.dtype(), DType::Int64);
  EXPECT_EQ(ints.tolist<int64_t>(), (std::vector<int64_t>{1, -1, 2}));
  EXPECT_EQ(ember::cumsum(ember::tensor<bool>({true, false, true}), 0).tolist<int64_t>(),
            (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(ember::cumsum(ember::scalar_tensor(2.5), 0).dim(), 0);
  EXPECT_EQ(ember::cumsum(ember::empty({4, 0}), 0).sizes().vec(), (Shape{4, 0}));
}

TEST(Primitives, SortAndTopk) {
  const Tensor x = f32({3, NAN, -1, 3, 0}, {5});
  const auto asc = ember::sort(x);
  expect_close(asc.values, {5}, {-1, 0, 3, 3, kNaN});
  EXPECT_EQ(asc.indices.tolist<int64_t>(), (std::vector<int64_t>{2, 4, 0, 3, 1}));
  const auto desc = ember::sort(x, 0, true, true);
  expect_close(desc.values, {5}, {kNaN, 3, 3, 0, -1});
  EXPECT_EQ(desc.indices.tolist<int64_t>(), (std::vector<int64_t>{1, 0, 3, 4, 2}));
  const auto rows = ember::sort(f32({3, 1, 2, 0, 5, 4}, {2, 3}), 1);
  expect_close(rows.values, {2, 3}, {1, 2, 3, 0, 4, 5});
  const auto cols = ember::sort(f32({3, 1, 2, 0, 5, 4}, {2, 3}), 0, true);
  EXPECT_EQ(cols.indices.tolist<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1, 0, 0}));
  const auto top = ember::topk(f32({1, 5, 2, 4, 3}, {5}), 2);
  expect_close(top.values, {2}, {5, 4});
  EXPECT_EQ(top.indices.tolist<int64_t>(), (std::vector<int64_t>{1, 3}));
  const auto low = ember::topk(f32({1, 5, 2, 4, 3}, {5}), 3, 0, false);
  expect_close(low.values, {3}, {1, 2, 3});
  EXPECT_EQ(ember::sort(ember::empty({2, 3}, ember::TensorOptions(DType::Float32, "meta")), 0).indices.dtype(),
            DType::Int64);
  expect_error([] { ember::topk(ember::ones({3}), 4); }, ErrorKind::Runtime, "out of range");
}

}  // namespace
