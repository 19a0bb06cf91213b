// The GPU plugin's device functions run on the host here, so that machines
// without a GPU check them: the elementwise ops against the CPU plugin
// (through the core) on edge values of every dtype, float16/bfloat16
// rounding against the SDK's host types, and the loop geometry against
// row-major addresses, reductions' combining and the sort order against the
// CPU plugin. Launches and memory need a GPU (test_gpu_plugin.cpp).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../kernels/elementwise_ops.cuh"
#include "../kernels/loop.cuh"
#include "../kernels/ordering.cuh"
#include "../kernels/reducers.cuh"
#include "../kernels/scalar.cuh"

namespace ember {
namespace {

namespace ops = gpu::ops;

template <class T>
std::vector<T> edge_values() {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_floating_point_v<T>) {
    return {T(0), T(-0.0), T(1), T(-1), T(2.5), T(-2.5), T(0.1), T(7), T(-7), T(1e30), T(-1e-30),
            L::infinity(), -L::infinity(), L::quiet_NaN()};
  } else if constexpr (std::is_signed_v<T>) {
    return {T(0), T(1), T(-1), T(2), T(3), T(-3), T(7), T(-8), L::max(), L::min(), T(L::max() - 1)};
  } else {
    return {T(0), T(1), T(2), T(3), T(7), L::max(), T(L::max() - 1)};
  }
}

template <class T>
bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
  } else {
    return a == b;
  }
}

// Within `ulps` units in the last place: the CPU plugin's pow is libmvec's
// vector pow, at most 4 ulp from the exact result (Note [Vector math]), as
// a device's pow is.
template <class T>
bool close_in_ulps(T a, T b, int ulps) {
  if constexpr (std::is_floating_point_v<T>) {
    if (same_value(a, b)) return true;
    if (!std::isfinite(a) || !std::isfinite(b)) return false;
    const T m = std::max(std::abs(a), std::abs(b));
    return std::abs(a - b) <= ulps * (std::nextafter(m, std::numeric_limits<T>::infinity()) - m);
  } else {
    return a == b;
  }
}

// Values of a core result as R (bool read through uint8).
template <class R>
std::vector<R> values_of(const Tensor& t) {
  if constexpr (std::is_same_v<R, bool>) {
    std::vector<R> out;
    for (uint8_t v : t.to(DType::UInt8).tolist<uint8_t>()) out.push_back(v != 0);
    return out;
  } else {
    return t.tolist<R>();
  }
}

enum class Skip { kNothing, kZeroDivisor, kNegativeExponent };

template <class T, class Op>
void expect_binary_matches(const char* name, Tensor (*core)(const Tensor&, const Tensor&), Op op,
                           Skip skip = Skip::kNothing, int ulps = 0) {
  using R = decltype(op(T{}, T{}));
  std::vector<T> a, b;
  for (T x : edge_values<T>()) {
    for (T y : edge_values<T>()) {
      if constexpr (!std::is_floating_point_v<T>) {
        if (skip == Skip::kZeroDivisor && y == T(0)) continue;
        if constexpr (std::is_signed_v<T>) {
          if (skip == Skip::kNegativeExponent && y < T(0) && x != T(1) && x != T(-1)) continue;
        }
      }
      a.push_back(x);
      b.push_back(y);
    }
  }
  const std::vector<R> expected = values_of<R>(core(tensor<T>(a), tensor<T>(b)));
  for (size_t i = 0; i < a.size(); ++i) {
    const R got = gpu::convert<R>(op(gpu::to_compute(a[i]), gpu::to_compute(b[i])));
    EXPECT_TRUE(close_in_ulps(got, expected[i], ulps))
        << name << "(" << +a[i] << ", " << +b[i] << "): device function " << +got << ", CPU plugin " << +expected[i];
  }
}

template <class T>
void expect_binary_ops_match() {
  expect_binary_matches<T>("add", add, ops::Add{});
  expect_binary_matches<T>("sub", sub, ops::Sub{});
  expect_binary_matches<T>("mul", mul, ops::Mul{});
  expect_binary_matches<T>("floor_divide", floor_divide, ops::FloorDivide{}, Skip::kZeroDivisor);
  expect_binary_matches<T>("remainder", remainder, ops::Remainder{}, Skip::kZeroDivisor);
  expect_binary_matches<T>("pow", pow, ops::Pow{}, Skip::kNegativeExponent, 4);
  expect_binary_matches<T>("maximum", maximum, ops::Maximum{});
  expect_binary_matches<T>("minimum", minimum, ops::Minimum{});
  expect_binary_matches<T>("eq", eq, ops::Eq{});
  expect_binary_matches<T>("lt", lt, ops::Lt{});
  expect_binary_matches<T>("ge", ge, ops::Ge{});
  expect_binary_matches<T>("logical_xor", logical_xor, ops::LogicalXor{});
  if constexpr (std::is_floating_point_v<T>) {
    expect_binary_matches<T>("div", div, ops::Div{});
  } else {
    expect_binary_matches<T>("bitwise_and", bitwise_and, ops::BitwiseAnd{});
    expect_binary_matches<T>("bitwise_xor", bitwise_xor, ops::BitwiseXor{});
  }
}

TEST(DeviceFunctions, BinaryOpsMatchTheCpuPluginOnEdgeValues) {
  expect_binary_ops_match<uint8_t>();
  expect_binary_ops_match<int8_t>();
  expect_binary_ops_match<int16_t>();
  expect_binary_ops_match<int32_t>();
  expect_binary_ops_match<int64_t>();
  expect_binary_ops_match<float>();
  expect_binary_ops_match<double>();
}

TEST(DeviceFunctions, IntegerErrorsAreReported) {
  int32_t error = gpu::kNoError;
  ops::FloorDivide divide{};
  divide.error = &error;
  EXPECT_EQ(divide(int32_t{5}, int32_t{0}), 0);
  EXPECT_EQ(error, gpu::kDivisionByZero);
  error = gpu::kNoError;
  ops::Pow power{};
  power.error = &error;
  EXPECT_EQ(power(int64_t{-1}, int64_t{-3}), -1);
  EXPECT_EQ(error, gpu::kNoError);
  EXPECT_EQ(power(int64_t{2}, int64_t{-1}), 0);
  EXPECT_EQ(error, gpu::kNegativePower);
}

// Transcendental functions may differ from the CPU plugin's vector maths by
// a few ulp; everything else must agree exactly.
template <class T, class Op>
void expect_unary_matches(const char* name, Tensor (*core)(const Tensor&), Op op, int ulps) {
  std::vector<T> x = edge_values<T>();
  std::mt19937 random(7);
  std::uniform_real_distribution<double> spread(-20.0, 20.0);
  for (int i = 0; i < 200; ++i) x.push_back(static_cast<T>(spread(random)));
  const std::vector<T> expected = core(tensor<T>(x)).template tolist<T>();
  for (size_t i = 0; i < x.size(); ++i) {
    const T got = op(x[i]);
    const T tolerance = T(ulps) * std::numeric_limits<T>::epsilon() * std::max(T(1), std::fabs(expected[i]));
    EXPECT_TRUE(same_value(got, expected[i]) || std::fabs(got - expected[i]) <= tolerance)
        << name << "(" << x[i] << "): device function " << got << ", CPU plugin " << expected[i];
  }
}

template <class T>
void expect_unary_ops_match() {
  expect_unary_matches<T>("neg", neg, ops::Neg{}, 0);
  expect_unary_matches<T>("abs", abs, ops::Abs{}, 0);
  expect_unary_matches<T>("sign", sign, ops::Sign{}, 0);
  expect_unary_matches<T>("floor", floor, ops::Floor{}, 0);
  expect_unary_matches<T>("ceil", ceil, ops::Ceil{}, 0);
  expect_unary_matches<T>("trunc", trunc, ops::Trunc{}, 0);
  expect_unary_matches<T>("round", round, ops::Round{}, 0);
  expect_unary_matches<T>("reciprocal", reciprocal, ops::Reciprocal{}, 0);
  expect_unary_matches<T>("sqrt", sqrt, ops::Sqrt{}, 1);
  expect_unary_matches<T>("exp", exp, ops::Exp{}, 4);
  expect_unary_matches<T>("log", log, ops::Log{}, 4);
  expect_unary_matches<T>("sin", sin, ops::Sin{}, 4);
  expect_unary_matches<T>("cos", cos, ops::Cos{}, 4);
  expect_unary_matches<T>("tanh", tanh, ops::Tanh{}, 4);
  expect_unary_matches<T>("sigmoid", sigmoid, ops::Sigmoid{}, 4);
  expect_unary_matches<T>("erf", erf, ops::Erf{}, 4);
}

TEST(DeviceFunctions, UnaryOpsMatchTheCpuPlugin) {
  expect_unary_ops_match<float>();
  expect_unary_ops_match<double>();
  for (int32_t x : edge_values<int32_t>()) {
    EXPECT_EQ(ops::Neg{}(x), neg(tensor<int32_t>({x})).tolist<int32_t>()[0]) << x;
    EXPECT_EQ(ops::Abs{}(x), abs(tensor<int32_t>({x})).tolist<int32_t>()[0]) << x;
    EXPECT_EQ(ops::Sign{}(x), sign(tensor<int32_t>({x})).tolist<int32_t>()[0]) << x;
  }
  EXPECT_EQ(ops::Sign{}(uint8_t{200}), uint8_t{1});
}

template <class H>
H with_bits(uint32_t bits) {
  H h;
  h.bits = static_cast<uint16_t>(bits);
  return h;
}

TEST(DeviceFunctions, Float16AndBFloat16RoundLikeTheSdk) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const float from_half = static_cast<float>(with_bits<gpu::Half>(bits));
    const float from_sdk_half = static_cast<float>(sdk::float16::from_bits(static_cast<uint16_t>(bits)));
    ASSERT_TRUE(same_value(from_half, from_sdk_half)) << std::hex << bits;
    const float from_bf16 = static_cast<float>(with_bits<gpu::BFloat16>(bits));
    const float from_sdk_bf16 = static_cast<float>(sdk::bfloat16::from_bits(static_cast<uint16_t>(bits)));
    ASSERT_TRUE(same_value(from_bf16, from_sdk_bf16)) << std::hex << bits;
  }
  std::vector<float> floats = edge_values<float>();
  for (float f : {65504.0f, 65520.0f, 1.0f + 0x1p-11f, 1.0f + 0x1p-8f, 0x1p-24f, 0x1p-25f, 3.0f * 0x1p-26f}) {
    floats.push_back(f);
    floats.push_back(-f);
  }
  std::mt19937 random(3);
  std::uniform_int_distribution<uint32_t> any_bits;
  for (int i = 0; i < 100000; ++i) floats.push_back(gpu::float_of(any_bits(random)));
  for (float f : floats) {
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(static_cast<float>(gpu::Half(f))));
      EXPECT_TRUE(std::isnan(static_cast<float>(gpu::BFloat16(f))));
      continue;
    }
    EXPECT_EQ(gpu::Half(f).bits, sdk::float16(f).bits) << f;
    EXPECT_EQ(gpu::BFloat16(f).bits, sdk::bfloat16(f).bits) << f;
  }
}

TEST(DeviceFunctions, ConversionsFollowTheCatalogue) {
  EXPECT_EQ(gpu::convert<int32_t>(-2.9f), -2);  // toward zero
  EXPECT_EQ(gpu::convert<bool>(std::numeric_limits<float>::quiet_NaN()), true);
  EXPECT_EQ(gpu::convert<bool>(-0.0), false);
  EXPECT_EQ(static_cast<float>(gpu::convert<gpu::Half>(true)), 1.0f);
  EXPECT_EQ(gpu::convert<int64_t>(gpu::BFloat16(-3.5f)), -3);
  EXPECT_EQ(gpu::convert<uint8_t>(int64_t{300}), uint8_t{44});  // wraps like a C conversion
}

// Values with ties and NaN, for the order-sensitive reductions and sort.
std::vector<float> values_with_ties_and_nan(std::mt19937& random, bool with_nan) {
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<float> values(40);
  for (float& v : values) v = static_cast<float>(small(random));
  if (with_nan) {
    values[7] = std::numeric_limits<float>::quiet_NaN();
    values[23] = std::numeric_limits<float>::quiet_NaN();
  }
  return values;
}

// Combines the lifted values in a random tree, as blocks, warps and a
// second pass may, and returns the result.
template <class R>
typename R::Acc combine_in_random_tree(const R& r, const std::vector<float>& values, std::mt19937& random) {
  std::vector<typename R::Acc> parts;
  for (size_t j = 0; j < values.size(); ++j) parts.push_back(r.lift(values[j], static_cast<int64_t>(j)));
  parts.push_back(r.identity());
  while (parts.size() > 1) {
    std::uniform_int_distribution<size_t> pick(0, parts.size() - 2);
    const size_t k = pick(random);
    const bool swap = random() % 2 == 1;  // operands in either order
    parts[k] = swap ? r.combine(parts[k + 1], parts[k]) : r.combine(parts[k], parts[k + 1]);
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(k) + 1);
  }
  return parts[0];
}

TEST(DeviceFunctions, ArgAndExtremeReductionsCombineInAnyOrderLikeTheCpu) {
  std::mt19937 random(11);
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<float> values = values_with_ties_and_nan(random, trial % 2 == 1);
    const Tensor x = tensor<float>(values);
    EXPECT_EQ(combine_in_random_tree(gpu::ArgReducer<float, true>{}, values, random).index,
              argmax(x).item<int64_t>());
    EXPECT_EQ(combine_in_random_tree(gpu::ArgReducer<float, false>{}, values, random).index,
              argmin(x).item<int64_t>());
    EXPECT_TRUE(same_value(combine_in_random_tree(gpu::ExtremeReducer<float, true>{}, values, random),
                           amax(x).item<float>()));
    EXPECT_TRUE(same_value(combine_in_random_tree(gpu::ExtremeReducer<float, false>{}, values, random),
                           amin(x).item<float>()));
  }
}

TEST(DeviceFunctions, SortOrderIsTheCpuStableSortOrder) {
  std::mt19937 random(5);
  for (bool descending : {false, true}) {
    for (int trial = 0; trial < 20; ++trial) {
      const std::vector<float> values = values_with_ties_and_nan(random, true);
      std::vector<int64_t> order(values.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return gpu::goes_before(values[a], values[b], descending);
      });
      const ValuesIndices expected = sort(tensor<float>(values), 0, descending, true);
      EXPECT_EQ(order, expected.indices.tolist<int64_t>()) << (descending ? "descending" : "ascending");
    }
  }
}

// Every element's address from the loop equals its row-major address, on
// both the 32-bit and the 64-bit index paths.
TEST(DeviceFunctions, LoopLocatesEveryElementInRowMajorOrder) {
  struct Case {
    std::vector<int64_t> shape;
    std::vector<int64_t> strides_a;  // elements
    std::vector<int64_t> strides_b;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4, 5}, {60, 20, 5, 1}, {60, 20, 5, 1}},       // contiguous: one dimension
      {{2, 3, 4, 5}, {1, 2, 6, 24}, {60, 20, 5, 1}},        // transposed against contiguous
      {{3, 1, 4, 2}, {8, 99, 2, 1}, {0, 0, 1, 0}},          // a size-1 dim and broadcasts
      {{5, 7}, {14, 2}, {0, 1}},                            // a strided row
      {{2, 2, 2, 2, 2, 2}, {64, 1, 32, 2, 16, 4}, {1, 2, 4, 8, 16, 32}},  // six dims that cannot merge
  };
  std::vector<float> memory(4096);
  for (const Case& c : cases) {
    DLTensor a{}, b{};
    for (DLTensor* t : {&a, &b}) {
      t->data = memory.data();
      t->device = {kDLCPU, 0};
      t->ndim = static_cast<int32_t>(c.shape.size());
      t->dtype = {kDLFloat, 32, 1};
      t->shape = const_cast<int64_t*>(c.shape.data());
    }
    a.strides = const_cast<int64_t*>(c.strides_a.data());
    b.strides = const_cast<int64_t*>(c.strides_b.data());
    gpu::Loop<2> loop = gpu::make_loop<2>({&a, &b});
    for (int32_t narrow : {1, 0}) {
      loop.narrow = narrow;
      for (int64_t i = 0; i < loop.numel; ++i) {
        int64_t rest = i, offset_a = 0, offset_b = 0;
        for (int d = static_cast<int>(c.shape.size()) - 1; d >= 0; --d) {
          const int64_t index = rest % c.shape[d];
          rest /= c.shape[d];
          offset_a += index * c.strides_a[d];
          offset_b += index * c.strides_b[d];
        }
        char* p[2];
        loop.locate(i, p);
        ASSERT_EQ(p[0], reinterpret_cast<char*>(memory.data() + offset_a)) << "element " << i;
        ASSERT_EQ(p[1], reinterpret_cast<char*>(memory.data() + offset_b)) << "element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ember
