// The CPU plugin's floating unary ops and pow through its vector loops
// (Note [Vector math clones]): within 4 ulp of a reference computed in long
// double (at least float64's precision) over the whole range of each type
// and its special values, and the same results on every run shape (strided,
// float16/bfloat16 staged through float32).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember.h>

namespace {

using ember::DType;
using ember::Tensor;

// libmvec's documented bound, which C's functions meet too.
constexpr double kMaxUlp = 4;

template <class T>
struct Bits;
template <>
struct Bits<float> {
  using type = uint32_t;
};
template <>
struct Bits<double> {
  using type = uint64_t;
};

// A floating format: significand bits (with the implicit one), the
// exponent of its smallest subnormal, its largest finite value.
struct Format {
  int digits;
  int min_exponent;
  long double max;
};

template <class T>
constexpr Format format_of() {
  using Limits = std::numeric_limits<T>;
  return {Limits::digits, Limits::min_exponent - Limits::digits, Limits::max()};
}
constexpr Format kBFloat16{8, -133, 0x1.fep127L};
constexpr Format kFloat16{11, -24, 65504};

// Distance from `got` to the exact value `want` in ulps of `format` at
// `want` (subnormal spacing below the normal range). Both NaN is 0; an
// infinity is exact where `want` lies beyond the largest finite value in
// its direction; a NaN or infinity against anything else is infinite.
double ulp_error(long double got, long double want, const Format& format) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want) ? 0 : INFINITY;
  if (std::isinf(got)) {
    return std::signbit(got) == std::signbit(want) && std::fabs(want) >= format.max ? 0 : INFINITY;
  }
  if (std::isinf(want)) return INFINITY;
  int exponent = 0;
  std::frexp(want, &exponent);
  const long double ulp = std::ldexp(1.0L, std::max(exponent - format.digits, format.min_exponent));
  return static_cast<double>(std::fabs(got - want) / ulp);
}

// Special values, a dense sweep of [-16, 16], and random bit patterns
// (every exponent, subnormals included).
template <class T>
std::vector<T> sweep_inputs() {
  using Limits = std::numeric_limits<T>;
  std::vector<T> values = {T(0),
                           T(-0.0),
                           Limits::infinity(),
                           -Limits::infinity(),
                           Limits::quiet_NaN(),
                           Limits::min(),
                           -Limits::min(),
                           Limits::denorm_min(),
                           -Limits::denorm_min(),
                           Limits::max(),
                           -Limits::max(),
                           T(1),
                           T(-1),
                           T(0.5),
                           T(-0.5),
                           T(88.72),
                           T(-87.4),
                           T(-95),
                           T(-103.9),
                           T(709.7),
                           T(-745.1),
                           T(1e-30),
                           T(-1e-30),
                           T(1e30),
                           T(3.14159265),
                           T(1.57079632),
                           T(-1.57079632),
                           T(1e-7),
                           T(-0.99999)};
  constexpr int kDense = 1 << 14;
  for (int i = 0; i <= kDense; ++i) values.push_back(T(-16) + T(32) * static_cast<T>(i) / kDense);
  std::mt19937_64 random(12345);
  for (int i = 0; i < (1 << 15); ++i) {
    typename Bits<T>::type bits = static_cast<typename Bits<T>::type>(random());
    T value;
    std::memcpy(&value, &bits, sizeof value);
    if (std::isfinite(value)) values.push_back(value);
  }
  return values;
}

template <class T>
constexpr DType dtype_of() {
  return std::is_same_v<T, float> ? DType::Float32 : DType::Float64;
}

struct UnaryOp {
  const char* name;
  Tensor (*fn)(const Tensor&);
  long double (*reference)(long double);
  double max_ulp;
};

const std::vector<UnaryOp>& unary_ops() {
  static const std::vector<UnaryOp> ops = {
      {"exp", &ember::exp, [](long double x) { return std::exp(x); }, kMaxUlp},
      {"log", &ember::log, [](long double x) { return std::log(x); }, kMaxUlp},
      {"log1p", &ember::log1p, [](long double x) { return std::log1p(x); }, kMaxUlp},
      {"expm1", &ember::expm1, [](long double x) { return std::expm1(x); }, kMaxUlp},
      {"sqrt", &ember::sqrt, [](long double x) { return std::sqrt(x); }, 0.5},
      {"rsqrt", &ember::rsqrt, [](long double x) { return 1 / std::sqrt(x); }, kMaxUlp},
      {"sin", &ember::sin, [](long double x) { return std::sin(x); }, kMaxUlp},
      {"cos", &ember::cos, [](long double x) { return std::cos(x); }, kMaxUlp},
      {"tan", &ember::tan, [](long double x) { return std::tan(x); }, kMaxUlp},
      {"tanh", &ember::tanh, [](long double x) { return std::tanh(x); }, kMaxUlp},
      {"sigmoid", &ember::sigmoid, [](long double x) { return 1 / (1 + std::exp(-x)); }, kMaxUlp},
      {"erf", &ember::erf, [](long double x) { return std::erf(x); }, kMaxUlp},
      {"erfc", &ember::erfc, [](long double x) { return std::erfc(x); }, kMaxUlp},
      {"asin", &ember::asin, [](long double x) { return std::asin(x); }, kMaxUlp},
      {"acos", &ember::acos, [](long double x) { return std::acos(x); }, kMaxUlp},
      {"atan", &ember::atan, [](long double x) { return std::atan(x); }, kMaxUlp},
      {"reciprocal", &ember::reciprocal, [](long double x) { return 1 / x; }, 0.5},
      {"floor", &ember::floor, [](long double x) { return std::floor(x); }, 0},
      {"ceil", &ember::ceil, [](long double x) { return std::ceil(x); }, 0},
      {"trunc", &ember::trunc, [](long double x) { return std::trunc(x); }, 0},
      {"round", &ember::round, [](long double x) { return std::nearbyint(x); }, 0},
  };
  return ops;
}

// The worst ulp error of op over the elements of x, against a reference in
// long double: float64's precision or more, so its own rounding error is far
// below the ulp of any tested format.
struct WorstCase {
  double ulp = 0;
  double input = 0;
  double got = 0;
};

std::ostream& operator<<(std::ostream& out, const WorstCase& worst) {
  return out << worst.ulp << " ulp at " << worst.input << " (got " << worst.got << ")";
}

WorstCase worst_ulp(const UnaryOp& op, const Tensor& x, const Format& format) {
  const std::vector<double> inputs = x.tolist<double>();
  const std::vector<double> got = op.fn(x).tolist<double>();
  WorstCase worst;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const double error = ulp_error(got[i], op.reference(inputs[i]), format);
    if (!(error <= worst.ulp)) worst = {error, inputs[i], got[i]};
  }
  return worst;
}

// Contiguous tensors run in place through the vector loop; every other
// element of a longer one is staged into it.
template <class T>
void expect_within_ulp(const UnaryOp& op) {
  SCOPED_TRACE(std::string(op.name) + (std::is_same_v<T, float> ? " float32" : " float64"));
  const std::vector<T> inputs = sweep_inputs<T>();
  std::vector<T> spread(2 * inputs.size(), T(0));
  for (size_t i = 0; i < inputs.size(); ++i) spread[2 * i] = inputs[i];
  const WorstCase contiguous = worst_ulp(op, ember::tensor<T>(inputs), format_of<T>());
  EXPECT_LE(contiguous.ulp, op.max_ulp) << "contiguous: " << contiguous;
  const WorstCase strided = worst_ulp(op, ember::tensor<T>(spread).slice(0, 0, std::nullopt, 2), format_of<T>());
  EXPECT_LE(strided.ulp, op.max_ulp) << "strided: " << strided;
}

TEST(VectorMath, Float32UnaryWithinFourUlp) {
  for (const UnaryOp& op : unary_ops()) expect_within_ulp<float>(op);
}

TEST(VectorMath, Float64UnaryWithinFourUlp) {
  for (const UnaryOp& op : unary_ops()) expect_within_ulp<double>(op);
}

// float16 and bfloat16 compute in float32 and round once on store: half an
// ulp of the narrow format from the exact value, plus the float32 result's
// own error, which is tiny at the narrow format's precision.
TEST(VectorMath, ReducedFloatsRoundOnce) {
  const Tensor x = ember::tensor<float>(sweep_inputs<float>());
  for (const auto& [dtype, format] : {std::pair{DType::BFloat16, kBFloat16}, std::pair{DType::Float16, kFloat16}}) {
    const Tensor narrow = x.to(dtype);
    for (const UnaryOp& op : unary_ops()) {
      SCOPED_TRACE(std::string(op.name) + (dtype == DType::BFloat16 ? " bfloat16" : " float16"));
      ASSERT_EQ(op.fn(narrow).dtype(), dtype);
      const double bound = 0.5 + std::ldexp(op.max_ulp, format.digits - std::numeric_limits<float>::digits) + 1e-9;
      const WorstCase worst = worst_ulp(op, narrow, format);
      EXPECT_LE(worst.ulp, bound) << worst;
    }
  }
}

template <class T>
void expect_pow_within_ulp() {
  SCOPED_TRACE((std::is_same_v<T, float> ? "float32" : "float64"));
  const std::vector<T> bases = sweep_inputs<T>();
  std::vector<T> exponents(bases.size());
  std::mt19937 random(7);
  std::uniform_real_distribution<T> spread(-12, 12);
  const T specials[] = {T(0),
                        T(-0.0),
                        T(1),
                        T(-1),
                        T(2),
                        T(3),
                        T(0.5),
                        T(-0.5),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN()};
  for (size_t i = 0; i < exponents.size(); ++i) {
    exponents[i] = i % 3 == 0 ? specials[(i / 3) % std::size(specials)] : spread(random);
  }
  const Tensor exponent_tensor = ember::tensor<T>(exponents);
  const std::vector<T> got = ember::pow(ember::tensor<T>(bases), exponent_tensor).template tolist<T>();
  double worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < bases.size(); ++i) {
    const long double want = std::pow(static_cast<long double>(bases[i]), static_cast<long double>(exponents[i]));
    const double error = ulp_error(got[i], want, format_of<T>());
    if (!(error <= worst)) worst = error, worst_at = i;
  }
  EXPECT_LE(worst, kMaxUlp) << "pow(" << bases[worst_at] << ", " << exponents[worst_at] << ") = " << got[worst_at];
}

TEST(VectorMath, PowWithinFourUlp) {
  expect_pow_within_ulp<float>();
  expect_pow_within_ulp<double>();
}

// libm has no erfinv: the reference is a Newton step on erfl from the
// result in long double, which lands within long double's precision of the
// exact inverse of a result that is already close.
template <class T>
void expect_erfinv_within_ulp(double max_ulp) {
  SCOPED_TRACE((std::is_same_v<T, float> ? "erfinv float32" : "erfinv float64"));
  std::vector<T> inputs = {T(0), T(-0.0), T(1e-30), T(0.5), T(-0.5), T(0.9), T(0.999999), T(-0.999999)};
  std::mt19937 random(11);
  std::uniform_real_distribution<T> unit(-1, 1);
  for (int i = 0; i < 20000; ++i) inputs.push_back(unit(random));
  for (int k = 1; k < std::numeric_limits<T>::digits; ++k) inputs.push_back(T(1) - std::ldexp(T(1), -k));
  const std::vector<T> got = ember::erfinv(ember::tensor<T>(inputs)).template tolist<T>();
  double worst = 0;
  size_t worst_at = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const long double x = got[i], y = inputs[i];
    const long double residual = y > 0.5L ? (1 - y) - std::erfc(x) : std::erf(x) - y;
    const long double slope = 2 / std::sqrt(3.14159265358979323846264338327950288L) * std::exp(-x * x);
    const long double exact = x + (y > 0.5L ? residual : -residual) / slope;
    const double error = ulp_error(got[i], exact, format_of<T>());
    if (!(error <= worst)) worst = error, worst_at = i;
  }
  EXPECT_LE(worst, max_ulp) << "erfinv(" << inputs[worst_at] << ") = " << got[worst_at];
}

TEST(VectorMath, ErfinvWithinTwoUlp) {
  expect_erfinv_within_ulp<float>(1);
  expect_erfinv_within_ulp<double>(2);
}

// Exact values: psi(n) = H(n-1) - gamma, psi(n + 1/2) = -gamma - 2 ln 2 +
// sum_k<=n 2 / (2k - 1), and psi(1/2 - n) = psi(1/2 + n), where the
// reflection's pi / tan(pi x) vanishes. Where |psi| < 1 the recurrence's
// sum of reciprocals, near 2.8 from x = 1, cancels down to the result, so
// the bound is 4 ulp of the larger of |psi| and 1 (PyTorch's digamma, the
// same recurrence, is 47 ulp of psi(1.5) off in float64).
TEST(VectorMath, DigammaWithinFourUlpOfItsValueOrOfOne) {
  constexpr long double kGamma = 0.577215664901532860606512090082402431L;
  std::vector<double> inputs;
  std::vector<long double> exact;
  long double harmonic = 0, odd_sum = 0;
  for (int n = 1; n <= 60; ++n) {
    inputs.push_back(n);
    exact.push_back(harmonic - kGamma);
    harmonic += 1.0L / n;
    const long double half = -kGamma - 2 * std::log(2.0L) + odd_sum;
    inputs.push_back(n - 0.5);
    exact.push_back(half);
    inputs.push_back(1.5 - n);
    exact.push_back(half);
    odd_sum += 2.0L / (2 * n - 1);
  }
  for (const bool single : {false, true}) {
    SCOPED_TRACE(single ? "float32" : "float64");
    const Tensor x = ember::tensor<double>(inputs).to(single ? DType::Float32 : DType::Float64);
    const std::vector<double> got = ember::digamma(x).to(DType::Float64).tolist<double>();
    for (size_t i = 0; i < inputs.size(); ++i) {
      const long double unit = std::max<long double>(std::fabs(exact[i]), 1);
      const double error =
          ulp_error(got[i] - exact[i] + unit, unit, single ? format_of<float>() : format_of<double>());
      EXPECT_LE(error, kMaxUlp) << "digamma(" << inputs[i] << ") = " << got[i];
    }
  }
}

// x ** 2 is one multiplication: C's pow(x, 2) exactly, specials included.
TEST(VectorMath, SquareIsExact) {
  const std::vector<float> inputs = sweep_inputs<float>();
  const std::vector<float> got = ember::pow(ember::tensor<float>(inputs), ember::Scalar(2.0)).tolist<float>();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const float want = std::pow(inputs[i], 2.0f);
    EXPECT_TRUE(got[i] == want || (std::isnan(got[i]) && std::isnan(want))) << inputs[i] << " ** 2 = " << got[i];
  }
}

// Threads split a run wherever their chunks end; every element still takes
// the same vector path (Note [Position-independent vector math]), so the
// bits do not depend on the thread count.
TEST(VectorMath, SameBitsForAnyThreadCount) {
  const int threads_before = ember::get_num_threads();
  const std::vector<float> inputs = sweep_inputs<float>();
  std::vector<float> values;
  while (values.size() < 200003) values.insert(values.end(), inputs.begin(), inputs.end());
  values.resize(200003);
  const Tensor x = ember::tensor<float>(values);
  const Tensor strided = x.slice(0, 1, std::nullopt, 3);
  std::vector<std::vector<float>> first;
  for (const int threads : {1, 2, 3}) {
    ember::set_num_threads(threads);
    std::vector<std::vector<float>> got;
    for (const UnaryOp& op : unary_ops()) {
      got.push_back(op.fn(x).tolist<float>());
      got.push_back(op.fn(strided).tolist<float>());
    }
    got.push_back(ember::pow(ember::abs(x), ember::Scalar(0.7)).tolist<float>());
    if (first.empty()) {
      first = got;
      continue;
    }
    for (size_t i = 0; i < got.size(); ++i) {
      const std::string what = i / 2 < unary_ops().size() ? unary_ops()[i / 2].name : "pow";
      EXPECT_EQ(0, std::memcmp(got[i].data(), first[i].data(), got[i].size() * sizeof(float)))
          << what << (i % 2 ? " strided" : "") << " with " << threads << " threads";
    }
  }
  ember::set_num_threads(threads_before);
}

}  // namespace
