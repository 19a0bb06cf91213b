// The elementwise ops of the catalogue (ops.md "Elementwise unary" and
// "binary") as device functors over compute types. Maths functions are
// named with `::`, the CUDA/HIP overloads for float and double, so that no
// enclosing namespace's function of the same name can hide them. Integer
// arithmetic wraps, and floor_divide, remainder and integer pow follow
// Python, by the SDK's scalar rules (ember/sdk/scalar_rules.hpp).
#pragma once

#include <cstdint>
#include <type_traits>

#include <ember/sdk/special_math.hpp>

#include "launch.cuh"
#include "scalar.cuh"

namespace ember::gpu::ops {

using sdk::wrap_add;
using sdk::wrap_mul;
using sdk::wrap_neg;
using sdk::wrap_sub;

template <class C>
EMBER_HOST_DEVICE inline bool is_nan(C x) {
  if constexpr (std::is_floating_point_v<C>) {
    return x != x;
  } else {
    return false;
  }
}

// ---------------------------------------------------------------- unary --

struct Neg {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return -x;
    } else {
      return wrap_neg(x);
    }
  }
};

struct Abs {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      return ::fabs(x);
    } else if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else {
      return x < C(0) ? wrap_neg(x) : x;
    }
  }
};

struct Sign {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return static_cast<C>(x != C(0));
    } else {
      if (is_nan(x)) return x;
      return static_cast<C>((C(0) < x) - (x < C(0)));
    }
  }
};

#define EMBER_GPU_FLOATING_UNARY(Name, expression) \
  struct Name {                                    \
    template <class C>                             \
    EMBER_HOST_DEVICE C operator()(C x) const {           \
      return expression;                           \
    }                                              \
  };

EMBER_GPU_FLOATING_UNARY(Exp, ::exp(x))
EMBER_GPU_FLOATING_UNARY(Log, ::log(x))
EMBER_GPU_FLOATING_UNARY(Log1p, ::log1p(x))
EMBER_GPU_FLOATING_UNARY(Expm1, ::expm1(x))
EMBER_GPU_FLOATING_UNARY(Sqrt, ::sqrt(x))
EMBER_GPU_FLOATING_UNARY(Rsqrt, ::rsqrt(x))
EMBER_GPU_FLOATING_UNARY(Sin, ::sin(x))
EMBER_GPU_FLOATING_UNARY(Cos, ::cos(x))
EMBER_GPU_FLOATING_UNARY(Tan, ::tan(x))
EMBER_GPU_FLOATING_UNARY(Tanh, ::tanh(x))
EMBER_GPU_FLOATING_UNARY(Sigmoid, C(1) / (C(1) + ::exp(-x)))
EMBER_GPU_FLOATING_UNARY(Erf, ::erf(x))
EMBER_GPU_FLOATING_UNARY(Erfc, ::erfc(x))
EMBER_GPU_FLOATING_UNARY(Erfinv, ::erfinv(x))
EMBER_GPU_FLOATING_UNARY(Asin, ::asin(x))
EMBER_GPU_FLOATING_UNARY(Acos, ::acos(x))
EMBER_GPU_FLOATING_UNARY(Atan, ::atan(x))
EMBER_GPU_FLOATING_UNARY(Lgamma, ::lgamma(x))
EMBER_GPU_FLOATING_UNARY(Digamma, sdk::digamma(x))
EMBER_GPU_FLOATING_UNARY(Reciprocal, C(1) / x)
EMBER_GPU_FLOATING_UNARY(Floor, ::floor(x))
EMBER_GPU_FLOATING_UNARY(Ceil, ::ceil(x))
EMBER_GPU_FLOATING_UNARY(Trunc, ::trunc(x))
EMBER_GPU_FLOATING_UNARY(Round, ::rint(x))  // half to even
#undef EMBER_GPU_FLOATING_UNARY

struct Identity {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    return x;
  }
};

struct LogicalNot {
  template <class C>
  EMBER_HOST_DEVICE bool operator()(C x) const {
    return x == C(0);
  }
};

struct BitwiseNot {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C x) const {
    if constexpr (std::is_same_v<C, bool>) {
      return !x;
    } else {
      return static_cast<C>(~x);
    }
  }
};

// --------------------------------------------------------------- binary --

struct Add {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) {
      return a || b;
    } else if constexpr (std::is_floating_point_v<C>) {
      return a + b;
    } else {
      return wrap_add(a, b);
    }
  }
};

struct Sub {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_floating_point_v<C>) {
      return a - b;
    } else {
      return wrap_sub(a, b);
    }
  }
};

struct Mul {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) {
      return a && b;
    } else if constexpr (std::is_floating_point_v<C>) {
      return a * b;
    } else {
      return wrap_mul(a, b);
    }
  }
};

struct Div {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    return a / b;
  }
};

// Ops that can meet an integer error report it through a device word
// (ErrorFlag) and produce 0 for that element.
struct Reporting {
  int32_t* error;
  EMBER_HOST_DEVICE void report(int32_t code) const { *error = code; }
};

// Python's floor division and %, which meet an integer divisor of 0.
struct FloorDivide : Reporting {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (!std::is_floating_point_v<C>) {
      if (b == C(0)) {
        report(kDivisionByZero);
        return C(0);
      }
    }
    return sdk::floor_divide(a, b);
  }
};

struct Remainder : Reporting {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    if constexpr (!std::is_floating_point_v<C>) {
      if (b == C(0)) {
        report(kDivisionByZero);
        return C(0);
      }
    }
    return sdk::remainder(a, b);
  }
};

// Integer powers wrap; a negative exponent is an error unless the base is 1
// or -1.
struct Pow : Reporting {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C base, C exponent) const {
    if constexpr (std::is_floating_point_v<C>) {
      return ::pow(base, exponent);
    } else {
      if (sdk::is_invalid_integer_pow(base, exponent)) {
        report(kNegativePower);
        return C(0);
      }
      return sdk::integer_pow(base, exponent);
    }
  }
};

template <bool kMax>
struct Extremum {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    if constexpr (kMax) {
      return a < b ? b : a;
    } else {
      return b < a ? b : a;
    }
  }
};
using Maximum = Extremum<true>;
using Minimum = Extremum<false>;

struct Atan2 {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    return ::atan2(a, b);
  }
};

struct BitwiseAnd {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    return static_cast<C>(a & b);
  }
};
struct BitwiseOr {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    return static_cast<C>(a | b);
  }
};
struct BitwiseXor {
  template <class C>
  EMBER_HOST_DEVICE C operator()(C a, C b) const {
    return static_cast<C>(a ^ b);
  }
};

#define EMBER_GPU_PREDICATE(Name, expression) \
  struct Name {                               \
    template <class C>                        \
    EMBER_HOST_DEVICE bool operator()(C a, C b) const { \
      return expression;                      \
    }                                         \
  };

EMBER_GPU_PREDICATE(LogicalAnd, (a != C(0)) && (b != C(0)))
EMBER_GPU_PREDICATE(LogicalOr, (a != C(0)) || (b != C(0)))
EMBER_GPU_PREDICATE(LogicalXor, (a != C(0)) != (b != C(0)))
EMBER_GPU_PREDICATE(Eq, a == b)
EMBER_GPU_PREDICATE(Ne, a != b)
EMBER_GPU_PREDICATE(Lt, a < b)
EMBER_GPU_PREDICATE(Le, a <= b)
EMBER_GPU_PREDICATE(Gt, a > b)
EMBER_GPU_PREDICATE(Ge, a >= b)
#undef EMBER_GPU_PREDICATE

}  // namespace ember::gpu::ops
