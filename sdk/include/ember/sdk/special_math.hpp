// special_math.hpp -- the catalogue's special functions that C math lacks or
// spells differently (ops.md "Elementwise unary"): `erfinv`, `digamma`, and
// `lgamma` without glibc's shared `signgam`. Written once for every plugin
// and compiled for host and device (EMBER_HOST_DEVICE). float arguments are
// computed in double and rounded once, so every dtype gets the double
// algorithm's accuracy.
#ifndef EMBER_SDK_SPECIAL_MATH_HPP_
#define EMBER_SDK_SPECIAL_MATH_HPP_

// <math.h>, not <cmath>: its global float and double overloads are the names
// nvcc and hipcc give device code too. Calls name them as ::log and so on:
// unqualified, lookup from ember::sdk would stop at the Tensor functions of
// the same names in ember (ember/ops.h) wherever both are included.
#include <math.h>

#include <ember/sdk/host_device.hpp>

namespace ember::sdk {

namespace special_detail {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kTwoOverSqrtPi = 1.12837916709551257390;

// Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011):
// a polynomial in w = -log(1 - y^2), one for the centre and one for the
// tails, within about 4e-7 relative of erfinv(y) for |y| < 1.
EMBER_HOST_DEVICE inline double erfinv_estimate(double y) {
  double w = -::log((1.0 - y) * (1.0 + y));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = ::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  return p * y;
}

// ln(x) - 1/(2x) - sum B_2k / (2k x^2k) up to x^-14: below 1e-16 relative
// for x >= 10.
EMBER_HOST_DEVICE inline double digamma_asymptotic(double x) {
  const double w = 1.0 / (x * x);
  const double series =
      w * (1.0 / 12 -
           w * (1.0 / 120 - w * (1.0 / 252 - w * (1.0 / 240 - w * (1.0 / 132 - w * (691.0 / 32760 - w / 12))))));
  return ::log(x) - 0.5 / x - series;
}

}  // namespace special_detail

// Note [erfinv by Newton steps]: Giles' estimate refined by Newton steps,
// on erf(x) = y for |y| <= 1/2 and on log erfc(x) = log(1 - |y|) above.
// 1 - |y| is exact, and erfc keeps its relative accuracy as erf(x) nears 1:
// a step on erf there would cancel against y and leave an error of
// ulp(1) / erf'(x), large when erf'(x) is small. In the logarithm the tail
// is close to the parabola -x^2, where Newton converges from afar: the
// estimate is fitted for float's range and is off by up to 0.4 once 1 - |y|
// falls towards 2^-53, and four steps bring it to double precision there;
// in the centre, where the estimate is within 4e-7, two steps do. erfinv(+-1)
// is +-inf and |y| > 1 is NaN, as in PyTorch; the sign of zero is kept.
EMBER_HOST_DEVICE inline double erfinv(double y) {
  const double magnitude = ::fabs(y);
  if (!(magnitude < 1.0)) {
    if (magnitude == 1.0) return y * HUGE_VAL;
    return NAN;  // |y| > 1, or NaN
  }
  double x = special_detail::erfinv_estimate(y);
  if (magnitude <= 0.5) {
    for (int step = 0; step < 2; ++step) x -= (::erf(x) - y) / (special_detail::kTwoOverSqrtPi * ::exp(-x * x));
    return x;
  }
  const double complement = 1.0 - magnitude;
  x = ::fabs(x);
  for (int step = 0; step < 4; ++step) {
    const double tail = ::erfc(x);
    x += ::log(tail / complement) * tail / (special_detail::kTwoOverSqrtPi * ::exp(-x * x));
  }
  return y < 0.0 ? -x : x;
}

// psi(x) = d/dx ln Gamma(x): the reflection psi(x) = psi(1 - x) - pi / tan(pi x)
// for negative x, the recurrence psi(x) = psi(x + 1) - 1/x up to 10, and the
// asymptotic series there. PyTorch's values at the poles: psi(+-0) = -+inf,
// NaN at negative integers and at -inf; psi(inf) = inf.
EMBER_HOST_DEVICE inline double digamma(double x) {
  if (x == 0.0) return ::signbit(x) ? HUGE_VAL : -HUGE_VAL;
  double correction = 0.0;
  if (x < 0.0) {
    if (x == ::floor(x)) return NAN;  // the poles, and -inf
    // tan has period pi, so it takes x's distance to the nearest integer,
    // which is exact: pi x itself loses the fraction's digits once |x| is
    // large, and x - floor(x) rounds a tiny negative x to 1.
    correction = special_detail::kPi / ::tan(special_detail::kPi * (x - ::round(x)));
    x = 1.0 - x;
  }
  while (x < 10.0) {
    correction += 1.0 / x;
    x += 1.0;
  }
  return special_detail::digamma_asymptotic(x) - correction;
}

// ln |Gamma(x)|. glibc's lgamma writes the sign of Gamma(x) to the global
// `signgam`, a data race between kernel threads; lgamma_r returns it instead.
EMBER_HOST_DEVICE inline double lgamma(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::lgamma(x);
#else
  int sign = 0;
  return ::lgamma_r(x, &sign);
#endif
}

EMBER_HOST_DEVICE inline float erfinv(float y) { return static_cast<float>(erfinv(static_cast<double>(y))); }
EMBER_HOST_DEVICE inline float digamma(float x) { return static_cast<float>(digamma(static_cast<double>(x))); }
EMBER_HOST_DEVICE inline float lgamma(float x) { return static_cast<float>(lgamma(static_cast<double>(x))); }

}  // namespace ember::sdk

#endif  // EMBER_SDK_SPECIAL_MATH_HPP_
