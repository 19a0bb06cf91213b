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

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kE = 2.718281828459045f;
constexpr float kPi = 3.141592653589793f;

void expect_floats(const Tensor& t, const std::vector<float>& want, float rtol = 1e-6f) {
  const std::vector<float> got = t.tolist<float>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " is " << got[i] << ", expected NaN";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rtol * std::max(1.0f, std::fabs(want[i]))) << "element " << i;
    }
  }
}

Tensor f32(const std::vector<float>& v) { return ember::tensor<float>(v); }
Tensor i32(const std::vector<int32_t>& v) { return ember::tensor<int32_t>(v); }
Tensor i8(const std::vector<int8_t>& v) { return ember::tensor<int8_t>(v); }
Tensor b(const std::vector<bool>& v) { return ember::tensor<bool>(v); }

struct UnaryCase {
  const char* name;
  Tensor (*fn)(const Tensor&);
  std::vector<float> in;
  std::vector<float> want;
};

TEST(Elementwise, FloatUnaryValues) {
  const std::vector<UnaryCase> cases = {
      {"neg", &ember::neg, {1.f, -2.f, 0.f}, {-1.f, 2.f, 0.f}},
      {"abs", &ember::abs, {-1.5f, 2.f, -kInf}, {1.5f, 2.f, kInf}},
      {"sign", &ember::sign, {-3.f, 0.f, 2.f, kNaN}, {-1.f, 0.f, 1.f, kNaN}},
      {"exp", &ember::exp, {0.f, 1.f, -kInf}, {1.f, kE, 0.f}},
      {"log", &ember::log, {1.f, kE, 0.f, -1.f}, {0.f, 1.f, -kInf, kNaN}},
      {"log1p", &ember::log1p, {0.f, kE - 1.f, -1.f}, {0.f, 1.f, -kInf}},
      {"expm1", &ember::expm1, {0.f, 1.f}, {0.f, kE - 1.f}},
      {"sqrt", &ember::sqrt, {4.f, 0.f, -1.f}, {2.f, 0.f, kNaN}},
      {"rsqrt", &ember::rsqrt, {4.f, 0.f}, {0.5f, kInf}},
      {"sin", &ember::sin, {0.f, kPi / 2}, {0.f, 1.f}},
      {"cos", &ember::cos, {0.f, kPi}, {1.f, -1.f}},
      {"tan", &ember::tan, {0.f, kPi / 4}, {0.f, 1.f}},
      {"tanh", &ember::tanh, {0.f, 1.f, 100.f}, {0.f, 0.7615941559f, 1.f}},
      {"sigmoid", &ember::sigmoid, {0.f, 2.f, -100.f}, {0.5f, 0.8807970779f, 0.f}},
      {"erf", &ember::erf, {0.f, 1.f, -1.f}, {0.f, 0.8427007929f, -0.8427007929f}},
      {"erfc", &ember::erfc, {0.f, 1.f, kInf, -kInf}, {1.f, 0.1572992071f, 0.f, 2.f}},
      {"erfinv", &ember::erfinv, {0.f, 0.5f, -0.5f, 1.f, -1.f, 1.5f, kNaN},
       {0.f, 0.4769362762f, -0.4769362762f, kInf, -kInf, kNaN, kNaN}},
      {"asin", &ember::asin, {0.f, 1.f, -1.f, 0.5f, 1.5f}, {0.f, kPi / 2, -kPi / 2, kPi / 6, kNaN}},
      {"acos", &ember::acos, {1.f, -1.f, 0.5f, -1.5f}, {0.f, kPi, kPi / 3, kNaN}},
      {"atan", &ember::atan, {0.f, 1.f, kInf, -kInf}, {0.f, kPi / 4, kPi / 2, -kPi / 2}},
      {"lgamma", &ember::lgamma, {1.f, 2.f, 0.5f, 0.f, -1.f, -2.5f, kInf},
       {0.f, 0.f, 0.5723649429f, kInf, kInf, -0.0562437164f, kInf}},
      {"digamma", &ember::digamma, {1.f, 0.5f, 0.f, -1.f, -0.5f, kInf},
       {-0.5772156649f, -1.9635100260f, -kInf, kNaN, 0.0364899740f, kInf}},
      {"reciprocal", &ember::reciprocal, {2.f, -4.f, 0.f}, {0.5f, -0.25f, kInf}},
      {"floor", &ember::floor, {1.5f, -1.5f, 2.f}, {1.f, -2.f, 2.f}},
      {"ceil", &ember::ceil, {1.5f, -1.5f, 2.f}, {2.f, -1.f, 2.f}},
      {"round", &ember::round, {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 2.6f}, {0.f, 2.f, 2.f, -0.f, -2.f, 3.f}},
      {"trunc", &ember::trunc, {1.7f, -1.7f}, {1.f, -1.f}},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(c.name);
    Tensor out = c.fn(f32(c.in));
    EXPECT_EQ(out.dtype(), DType::Float32);
    expect_floats(out, c.want, 2e-6f);
  }
}

TEST(Elementwise, IntegerUnary) {
  EXPECT_EQ(ember::neg(i32({5, -3})).tolist<int32_t>(), (std::vector<int32_t>{-5, 3}));
  EXPECT_EQ(ember::abs(i8({-128, -5, 7})).tolist<int8_t>(), (std::vector<int8_t>{-128, 5, 7}));
  const int32_t imin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(ember::abs(i32({imin})).item<int32_t>(), imin);
  Tensor s = ember::sign(i32({-7, 0, 9}));
  EXPECT_EQ(s.dtype(), DType::Int32);
  EXPECT_EQ(s.tolist<int32_t>(), (std::vector<int32_t>{-1, 0, 1}));
  Tensor l = ember::log(i32({1}));
  EXPECT_EQ(l.dtype(), DType::Float32);
  EXPECT_FLOAT_EQ(l.item<float>(), 0.f);
  Tensor fl = ember::floor(i32({3, -4}));
  EXPECT_EQ(fl.dtype(), DType::Int32);
  EXPECT_EQ(fl.tolist<int32_t>(), (std::vector<int32_t>{3, -4}));
  EXPECT_EQ(ember::bitwise_not(i8({0, 5})).tolist<int8_t>(), (std::vector<int8_t>{-1, -6}));
  EXPECT_EQ(ember::bitwise_not(b({true, false})).tolist<bool>(), (std::vector<bool>{false, true}));
  Tensor ln = ember::logical_not(f32({0.f, 2.f, kNaN}));
  EXPECT_EQ(ln.dtype(), DType::Bool);
  EXPECT_EQ(ln.tolist<bool>(), (std::vector<bool>{true, false, false}));
}

TEST(Elementwise, FloatBinaryValues) {
  expect_floats(ember::add(f32({1, 2}), f32({0.5f, -3})), {1.5f, -1});
  expect_floats(ember::sub(f32({1, 2}), f32({0.5f, -3})), {0.5f, 5});
  expect_floats(ember::mul(f32({1.5f, 2}), f32({2, -3})), {3, -6});
  expect_floats(ember::div(f32({1, -1, 0, 3}), f32({0, 0, 0, 2})), {kInf, -kInf, kNaN, 1.5f});
  expect_floats(ember::floor_divide(f32({7.5f, -7.5f}), f32({2, 2})), {3, -4});
  expect_floats(ember::remainder(f32({5.5f, -5.5f, 5.5f}), f32({2, 2, -2})), {1.5f, 0.5f, -0.5f});
  expect_floats(ember::pow(f32({2, 9, -2}), f32({3, 0.5f, 2})), {8, 3, 4});
  expect_floats(ember::maximum(f32({1, kNaN, 3}), f32({2, 0, kNaN})), {2, kNaN, kNaN});
  expect_floats(ember::minimum(f32({1, kNaN, 3}), f32({2, 0, kNaN})), {1, kNaN, kNaN});
  expect_floats(ember::atan2(f32({1, 1, -1, 0, kInf, kNaN}), f32({1, -1, 0, -1, kInf, 1})),
                {kPi / 4, 3 * kPi / 4, -kPi / 2, kPi, kPi / 4, kNaN});
  // PyTorch's (and C's) signs of zero: atan2(+-0, -0) is +-pi, atan2(-0, +0) is -0.
  EXPECT_EQ(ember::atan2(f32({-0.f}), f32({-0.f})).item<float>(), -kPi);
  EXPECT_TRUE(std::signbit(ember::atan2(f32({-0.f}), f32({0.f})).item<float>()));
  const Tensor promoted = ember::atan2(i32({1, 0}), i32({0, 1}));
  EXPECT_EQ(promoted.dtype(), DType::Float32);
  expect_floats(promoted, {kPi / 2, 0});
  EXPECT_EQ(ember::atan2(i32({1}).view({1, 1}), f32({1, 2, 3})).sizes(), (ember::DimVector{1, 3}));
}

TEST(Elementwise, IntegerBinaryPythonSemantics) {
  EXPECT_EQ(ember::floor_divide(i32({7, -7, 7, -7}), i32({2, 2, -2, -2})).tolist<int32_t>(),
            (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(ember::remainder(i32({7, -7, 7, -7}), i32({3, 3, -3, -3})).tolist<int32_t>(),
            (std::vector<int32_t>{1, 2, -2, -1}));
  Tensor s = ember::add(i8({127, -128}), i8({1, -1}));
  EXPECT_EQ(s.dtype(), DType::Int8);
  EXPECT_EQ(s.tolist<int8_t>(), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(ember::mul(i8({64}), i8({2})).item<int8_t>(), -128);
  EXPECT_EQ(ember::pow(i32({3, -2}), i32({4, 3})).tolist<int32_t>(), (std::vector<int32_t>{81, -8}));
  EXPECT_EQ(ember::bitwise_and(i32({12}), i32({10})).item<int32_t>(), 8);
  EXPECT_EQ(ember::bitwise_or(i32({12}), i32({10})).item<int32_t>(), 14);
  EXPECT_EQ(ember::bitwise_xor(i32({12}), i32({10})).item<int32_t>(), 6);
  EXPECT_EQ(ember::maximum(i32({-1, 5}), i32({3, 2})).tolist<int32_t>(), (std::vector<int32_t>{3, 5}));
  EXPECT_THROW(ember::floor_divide(i32({1}), i32({0})), ember::Error);
}

TEST(Elementwise, LogicalAndComparisons) {
  Tensor x = f32({1, 2, kNaN, 0});
  Tensor y = f32({1, 3, kNaN, 0});
  using BV = std::vector<bool>;
  EXPECT_EQ(ember::eq(x, y).tolist<bool>(), (BV{true, false, false, true}));
  EXPECT_EQ(ember::ne(x, y).tolist<bool>(), (BV{false, true, true, false}));
  EXPECT_EQ(ember::lt(x, y).tolist<bool>(), (BV{false, true, false, false}));
  EXPECT_EQ(ember::le(x, y).tolist<bool>(), (BV{true, true, false, true}));
  EXPECT_EQ(ember::gt(x, y).tolist<bool>(), (BV{false, false, false, false}));
  EXPECT_EQ(ember::ge(x, y).tolist<bool>(), (BV{true, false, false, true}));
  EXPECT_EQ(ember::gt(x, 1.5).dtype(), DType::Bool);
  EXPECT_EQ(ember::gt(x, 1.5).tolist<bool>(), (BV{false, true, false, false}));
  EXPECT_EQ(ember::eq(i32({3, 4}), f32({3.f, 4.5f})).tolist<bool>(), (BV{true, false}));
  EXPECT_EQ(ember::logical_and(f32({0, 1, 2}), i32({1, 0, 3})).tolist<bool>(), (BV{false, false, true}));
  EXPECT_EQ(ember::logical_or(f32({0, 0, 2}), i32({0, 1, 0})).tolist<bool>(), (BV{false, true, true}));
  Tensor lx = ember::logical_xor(b({true, true, false}), b({true, false, false}));
  EXPECT_EQ(lx.dtype(), DType::Bool);
  EXPECT_EQ(lx.tolist<bool>(), (BV{false, true, false}));
}

TEST(Elementwise, Broadcasting) {
  Tensor col = ember::tensor<float>({1, 2, 3}, {3, 1});
  Tensor row = ember::tensor<float>({10, 20, 30, 40}, {1, 4});
  Tensor out = col + row;
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{3, 4}));
  expect_floats(out, {11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43});
  Tensor zero_d = ember::scalar_tensor(1.5, DType::Float32);
  Tensor m = ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor o2 = zero_d + m;
  EXPECT_EQ(o2.sizes().vec(), (std::vector<int64_t>{2, 3}));
  expect_floats(o2, {2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f});
}

TEST(Elementwise, NonContiguousAndExpandedInputs) {
  Tensor m = ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor mt = m.t();
  ASSERT_FALSE(mt.is_contiguous());
  expect_floats(mt * 2.0, {2, 8, 4, 10, 6, 12});
  Tensor v = f32({0, 1, 2, 3, 4, 5, 6, 7});
  Tensor stepped = v.slice(0, 1, std::nullopt, 3);
  expect_floats(stepped, {1, 4, 7});
  expect_floats(ember::add(stepped, f32({10, 20, 30})), {11, 24, 37});
  Tensor expanded = f32({1, 2, 3}).expand({2, 3});
  expect_floats(ember::mul(expanded, mt.t()), {1, 4, 9, 4, 10, 18});
  expect_floats(ember::exp(ember::zeros({2, 2}).t()), {1, 1, 1, 1});
}

TEST(Elementwise, LargeTransposedMatchesReference) {
  const int64_t rows = 300, cols = 400;
  Tensor a = ember::arange(0, rows * cols, 1, DType::Float32).view({rows, cols}).t();
  Tensor b = ember::arange(0, rows, 1, DType::Float32);
  const std::vector<float> got = (a + b).tolist<float>();
  ASSERT_EQ(got.size(), static_cast<size_t>(rows * cols));
  int mismatches = 0;
  for (int64_t i = 0; i < cols; ++i) {
    for (int64_t j = 0; j < rows; ++j) {
      const float want = static_cast<float>(j * cols + i + j);
      if (got[i * rows + j] != want && ++mismatches <= 5) {
        ADD_FAILURE() << "at (" << i << ", " << j << "): got " << got[i * rows + j] << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Elementwise, ReducedPrecisionRoundsResult) {
  Tensor h = ember::exp(ember::tensor<float>({0.f, 1.f}).to(DType::Float16));
  EXPECT_EQ(h.dtype(), DType::Float16);
  expect_floats(h, {1.f, 2.71875f}, 0.f);
  Tensor bf = ember::sqrt(ember::tensor<float>({2.f, 4.f}).to(DType::BFloat16));
  EXPECT_EQ(bf.dtype(), DType::BFloat16);
  expect_floats(bf, {1.4140625f, 2.f}, 0.f);
  Tensor sum = ember::tensor<float>({1.f}).to(DType::BFloat16) + ember::tensor<float>({0.00390625f}).to(DType::BFloat16);
  expect_floats(sum, {1.f}, 0.f);
}

TEST(Elementwise, EmptyTensors) {
  Tensor e = ember::zeros({0, 3});
  Tensor out = e + ember::ones({1, 3});
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(out.numel(), 0);
  EXPECT_EQ(ember::exp(e).sizes().vec(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(ember::lt(e, 1.0).dtype(), DType::Bool);
}

TEST(Elementwise, TypePromotion) {
  EXPECT_EQ((i32({1}) + f32({1})).dtype(), DType::Float32);
  EXPECT_EQ((i8({1}) + ember::tensor<uint8_t>({1})).dtype(), DType::Int16);
  Tensor s = i8({100}) + 100;
  EXPECT_EQ(s.dtype(), DType::Int8);
  EXPECT_EQ(s.item<int8_t>(), static_cast<int8_t>(-56));
  Tensor f = i32({1, 2}) + 2.5;
  EXPECT_EQ(f.dtype(), DType::Float32);
  expect_floats(f, {3.5f, 4.5f});
  Tensor bb = ember::add(b({true, false, false}), b({true, true, false}));
  EXPECT_EQ(bb.dtype(), DType::Bool);
  EXPECT_EQ(bb.tolist<bool>(), (std::vector<bool>{true, true, false}));
  Tensor h = ember::tensor<float>({1.f, 3.f}).to(DType::Float16) * 2.5;
  EXPECT_EQ(h.dtype(), DType::Float16);
  expect_floats(h, {2.5f, 7.5f});
  Tensor q = i32({7, 1}) / i32({2, 4});
  EXPECT_EQ(q.dtype(), DType::Float32);
  expect_floats(q, {3.5f, 0.25f});
  EXPECT_EQ(ember::result_type(i8({1}), ember::scalar_tensor(int64_t{1}, DType::Int64)), DType::Int8);
}

TEST(Elementwise, WhereBroadcasts) {
  Tensor cond = ember::tensor<bool>({true, false, true}, {1, 3});
  Tensor a = ember::tensor<float>({1, 2}, {2, 1});
  Tensor out = ember::where(cond, a, i32({-1}));
  EXPECT_EQ(out.dtype(), DType::Float32);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2, 3}));
  expect_floats(out, {1, -1, 1, 2, -1, 2});
  expect_error([&] { ember::where(f32({1, 0, 1}), a, a); }, ErrorKind::Runtime, "bool");
}

TEST(Elementwise, InPlaceOps) {
  Tensor a = ember::tensor<float>({1, 2, 3, 4}, {2, 2});
  const uint32_t v0 = a.version();
  ember::add_(a, ember::tensor<float>({10, 20}, {1, 2}));
  expect_floats(a, {11, 22, 13, 24});
  EXPECT_GT(a.version(), v0);
  const uint32_t v1 = a.version();
  ember::mul_(a, i32({2}));
  expect_floats(a, {22, 44, 26, 48});
  EXPECT_GT(a.version(), v1);
  EXPECT_EQ(a.dtype(), DType::Float32);

  Tensor view = a.select(0, 1);
  view += 1.0;
  expect_floats(a, {22, 44, 27, 49});

  Tensor ints = i32({1, 2});
  ember::add_(ints, i8({3, 4}));
  EXPECT_EQ(ints.tolist<int32_t>(), (std::vector<int32_t>{4, 6}));
  expect_error([&] { ember::add_(ints, f32({0.5f, 0.5f})); }, ErrorKind::Runtime, "can't be cast");
  EXPECT_EQ(ints.tolist<int32_t>(), (std::vector<int32_t>{4, 6}));
  Tensor small = f32({1, 2});
  expect_error([&] { ember::mul_(small, ember::ones({3, 2})); }, ErrorKind::Runtime, "[2]");
}

TEST(Elementwise, Operators) {
  Tensor x = f32({1, 2, 4});
  Tensor y = f32({2, 2, 2});
  expect_floats(x + y, {3, 4, 6});
  expect_floats(x - y, {-1, 0, 2});
  expect_floats(x * y, {2, 4, 8});
  expect_floats(x / y, {0.5f, 1, 2});
  expect_floats(-x, {-1, -2, -4});
  expect_floats(10.0 - x, {9, 8, 6});
  expect_floats(8.0 / x, {8, 4, 2});
  expect_floats(3 * x, {3, 6, 12});
  expect_floats(1 + x, {2, 3, 5});
  Tensor ix = i32({1, 2});
  Tensor r = 5 - ix;
  EXPECT_EQ(r.dtype(), DType::Int32);
  EXPECT_EQ(r.tolist<int32_t>(), (std::vector<int32_t>{4, 3}));
}

TEST(Elementwise, Errors) {
  expect_error([] { ember::add(ember::zeros({2, 3}), ember::zeros({4})); }, ErrorKind::Runtime, "[2, 3]");
  expect_error([] { ember::add(ember::zeros({2, 3}), ember::zeros({4})); }, ErrorKind::Runtime, "[4]");
  expect_error([] { ember::neg(b({true})); }, ErrorKind::Runtime, "bool");
  expect_error([] { (void)-b({true}); }, ErrorKind::Runtime, "neg");
  expect_error([] { ember::sub(b({true}), b({false})); }, ErrorKind::Runtime, "bool");
  expect_error([] { ember::bitwise_and(f32({1}), f32({1})); }, ErrorKind::NotImplemented, "float32");
}

}  // namespace
