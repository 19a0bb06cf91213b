// scalar_rules.hpp -- the catalogue's rules for one element (ops.md
// "Floating point", "Elementwise binary"), written once for every plugin and
// compiled for host and device (EMBER_HOST_DEVICE):
//   - compute types: `Compute<T>`, `to_compute()`, `convert<To>()`;
//   - integer arithmetic that wraps modulo 2^bits: `wrap_add`, `wrap_sub`,
//     `wrap_mul`, `wrap_neg`;
//   - Python's `floor_divide` and `remainder`, and `integer_pow`.
// Errors are the caller's: a kernel rejects an integer divisor of 0, or a
// negative integer exponent of a base other than 1 and -1, before (host) or
// while (device) it applies these rules, which never throw.
#ifndef EMBER_SDK_SCALAR_RULES_HPP_
#define EMBER_SDK_SCALAR_RULES_HPP_

// <math.h>, not <cmath>: its global float and double overloads are the names
// nvcc and hipcc give device code too.
#include <math.h>
#include <stdint.h>

#include <ember/sdk/host_device.hpp>
#include <ember/sdk/storage_types.hpp>

#include <type_traits>

namespace ember::sdk {

template <class T>
inline constexpr bool is_reduced_float_v = is_reduced_float<T>::value;
template <class T>
inline constexpr bool is_floating_v = is_reduced_float_v<T> || std::is_floating_point_v<T>;
// The integer dtypes but bool.
template <class T>
inline constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type an element of storage type T is computed in: float for float16
// and bfloat16, T itself for every other dtype.
template <class T>
using Compute = std::conditional_t<is_reduced_float_v<T>, float, T>;

template <class T>
EMBER_HOST_DEVICE inline Compute<T> to_compute(T value) {
  if constexpr (is_reduced_float_v<T>) {
    return static_cast<float>(value);
  } else {
    return value;
  }
}

// Converts a value (storage or compute type) to storage type `To` with the
// catalogue's rules: to bool is `!= 0`, float to integer truncates, to
// float16/bfloat16 rounds to nearest even; integer to a narrower integer
// keeps the low bits.
template <class To, class From>
EMBER_HOST_DEVICE inline To convert(From value) {
  const auto v = to_compute(value);
  if constexpr (std::is_same_v<To, bool>) {
    return v != decltype(v)(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Integer arithmetic in an unsigned type at least 32 bits wide: unsigned
// arithmetic wraps where signed overflow is undefined, and the width keeps
// 8- and 16-bit operands from promoting to (signed) int.
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <class T>
EMBER_HOST_DEVICE inline T wrap_add(T a, T b) {
  return static_cast<T>(wrap_t<T>(a) + wrap_t<T>(b));
}
template <class T>
EMBER_HOST_DEVICE inline T wrap_sub(T a, T b) {
  return static_cast<T>(wrap_t<T>(a) - wrap_t<T>(b));
}
template <class T>
EMBER_HOST_DEVICE inline T wrap_mul(T a, T b) {
  return static_cast<T>(wrap_t<T>(a) * wrap_t<T>(b));
}
template <class T>
EMBER_HOST_DEVICE inline T wrap_neg(T a) {
  return static_cast<T>(wrap_t<T>(0) - wrap_t<T>(a));
}

// Python's floor division (a // b) of compute values. An integer b must not
// be 0. For floats it takes the steps of CPython's float_divmod, so that it
// agrees with remainder (1.0 // 0.1 == 9.0); b == 0 gives a / b (inf, nan).
template <class T>
EMBER_HOST_DEVICE inline T floor_divide(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b == T(0)) return a / b;
    const T mod = ::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return ::copysign(T(0), a / b);
    T floored = ::floor(div);
    if (div - floored > T(0.5)) floored += T(1);
    return floored;
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<T>(a / b);
  } else {
    if (b == T(-1)) return wrap_neg(a);  // INT_MIN / -1 wraps
    const T q = static_cast<T>(a / b);
    const bool inexact = static_cast<T>(a % b) != 0;
    return (inexact && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  }
}

// Python's a % b: the result takes the sign of b. An integer b must not be 0.
template <class T>
EMBER_HOST_DEVICE inline T remainder(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = ::fmod(a, b);
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
    return r;
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<T>(a % b);
  } else {
    if (b == T(-1)) return T(0);  // INT_MIN % -1 would trap
    const T r = static_cast<T>(a % b);
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
  }
}

// Whether base ** exponent is one the catalogue refuses: an integer to a
// negative power, unless the base is 1 or -1.
template <class T>
EMBER_HOST_DEVICE inline bool is_invalid_integer_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    return exponent < T(0) && base != T(1) && base != T(-1);
  } else {
    return false;
  }
}

// base ** exponent for integers, by squaring and wrapping. A negative
// exponent gives the exact result for a base of 1 or -1, and 0 for the bases
// is_invalid_integer_pow() refuses.
template <class T>
EMBER_HOST_DEVICE inline T integer_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < T(0)) {
      if (base == T(1)) return T(1);
      if (base == T(-1)) return (exponent & 1) ? T(-1) : T(1);
      return T(0);
    }
  }
  T result = 1;
  while (exponent != 0) {
    if (exponent & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    exponent = static_cast<T>(exponent >> 1);
  }
  return result;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_SCALAR_RULES_HPP_
