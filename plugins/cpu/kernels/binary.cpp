// Elementwise binary ops: arithmetic, comparison, logical and bitwise
// (ops.md "Elementwise binary"). Inputs arrive broadcast and converted.
#include "vector_math.h"

#include <cmath>
#include <limits>

#include "elementwise.h"
#include "kernels.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

// Floating types through one-pass loops on the machine's ISA (Note [One-pass
// exact arithmetic]), not one conversion call per element.
struct BinaryKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    if constexpr (sdk::is_floating_v<T>) {
      map_exact<Op, T, 2>(call, kElementwiseGrain);
    } else {
      map_elements<T, T, T>(call, Op{});
    }
  }
};

// Floating ops with a libmvec variant (Note [Vector math]) for every
// floating dtype.
struct VectorMathBinaryKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    map_vectorised<Op, T, 2>(call, kVectorMathGrain);
  }
};

struct BinaryPredicateKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    map_elements<bool, T, T>(call, Op{});
  }
};

// floor_divide and remainder: an integer divisor of zero is an error found
// before any output is written.
struct DivisionKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    if constexpr (sdk::is_integer_v<T>) {
      if (any_element<T>(call.inputs[1], [](T b) { return b == 0; })) {
        sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "integer division by zero");
      }
    }
    map_elements<T, T, T>(call, Op{});
  }
};

// Note [Float remainders in double]: fmod of two floats is exact, and
// glibc's fmodf takes a loop of its own per element (about 7 ns). In double,
// q = trunc(a / b) is the quotient's integer part, or one more where the
// quotient lies within a double's rounding of an integer; for |q| < 2^24 the
// product q * b is exact (24 + 24 bits), so a - q * b is the exact
// remainder, or that minus |b|, which one exact step corrects. Larger
// quotients, infinities, NaN and a zero divisor take fmodf. A zero keeps a's
// sign, as fmod's does.
// The sign tests are selects, not branches: with operands of random signs
// a branch there is mispredicted half the time.
float remainder_of_truncation(float a, float b) {
  const double x = a, y = b;
  const double q = std::trunc(x / y);
  if (!(std::fabs(q) < 16777216.0) || !std::isfinite(x) || y == 0.0 || !std::isfinite(y)) [[unlikely]] {
    return std::fmod(a, b);
  }
  const double r = x - q * y;
  const double toward_x = std::copysign(std::fabs(y), x);
  const double corrected = (r != 0.0 && (r < 0.0) != (x < 0.0)) ? r + toward_x : r;
  return static_cast<float>(corrected == 0.0 ? std::copysign(0.0, x) : corrected);
}

// Python's a % b (sdk::remainder) with the float path above.
struct Remainder {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, float>) {
      const float r = remainder_of_truncation(a, b);
      const float moved = r + b;
      return (r != 0.0f && (r < 0.0f) != (b < 0.0f)) ? moved : r;
    } else {
      return sdk::remainder(a, b);
    }
  }
};

template <class Op, class Types>
void add_binary(const sdk::Registrar& r, const char* name, Types types, Op op) {
  register_op<BinaryKernel>(r, name, types, op);
}

template <class Op>
void add_predicate(const sdk::Registrar& r, const char* name, Op op) {
  register_op<BinaryPredicateKernel>(r, name, sdk::AllTypes{}, op);
}

// Whether every element of t is the one at its data pointer (a broadcast
// scalar: strides 0 on every dimension longer than 1).
bool is_broadcast_scalar(const DLTensor& t) {
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] > 1 && t.strides[d] != 0) return false;
  }
  return true;
}

struct Square {
  template <class C>
  C operator()(C x) const {
    return x * x;
  }
};

// x ** 0.5 as a square root, correctly rounded (libmvec's pow is good to 4
// ulp), with C's pow at the two inputs where they differ: pow(-0, 0.5) is
// +0 (adding +0 turns sqrt's -0 into it) and pow(-inf, 0.5) is +inf.
struct SquareRoot {
  template <class C>
  C operator()(C x) const {
    return x == -std::numeric_limits<C>::infinity() ? std::numeric_limits<C>::infinity() : std::sqrt(x) + C(0);
  }
};

// Note [Powers as products]: x ** 3, x ** -1, x ** -2 and x ** -0.5 are
// written as PyTorch's CPU kernel writes them, (x * x) * x, 1 / x,
// 1 / (x * x) and 1 / sqrt(x), so they give its bits (at -0 and -inf too:
// (-0) ** -0.5 is -inf, (-inf) ** -0.5 NaN) at the cost of a multiplication
// or a division instead of a pow.
struct Cube {
  template <class C>
  C operator()(C x) const {
    return x * x * x;
  }
};

struct Reciprocal {
  template <class C>
  C operator()(C x) const {
    return C(1) / x;
  }
};

struct ReciprocalSquare {
  template <class C>
  C operator()(C x) const {
    return C(1) / (x * x);
  }
};

struct ReciprocalSquareRoot {
  template <class C>
  C operator()(C x) const {
    return C(1) / std::sqrt(x);
  }
};

// libmvec's pow costs about 1.2 ns an element (Note [Grain sizes]).
constexpr int64_t kPowGrain = grain_for(1.2);

struct PowKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    if constexpr (sdk::is_floating_v<T>) {
      // x ** 2, the commonest power, is one multiplication: exactly C's pow
      // for every x (NaN, infinities and signed zeros included) and
      // correctly rounded; x ** 0.5 is SquareRoot.
      const DLTensor& exponent = call.inputs[1];
      const bool scalar = is_broadcast_scalar(exponent) && sdk::numel(exponent) > 0;
      const auto power = scalar ? sdk::to_compute(*reinterpret_cast<const T*>(sdk::data_ptr(exponent))) : 0;
      if (scalar && power == 2) {
        map_exact<Square, T, 1>(call, kElementwiseGrain);
      } else if (scalar && power == 0.5) {
        map_exact<SquareRoot, T, 1>(call, kElementwiseGrain);
      } else if (scalar && power == 3) {
        map_exact<Cube, T, 1>(call, kElementwiseGrain);
      } else if (scalar && power == -1) {
        map_exact<Reciprocal, T, 1>(call, kElementwiseGrain);
      } else if (scalar && power == -2) {
        map_exact<ReciprocalSquare, T, 1>(call, kElementwiseGrain);
      } else if (scalar && power == -0.5) {
        map_exact<ReciprocalSquareRoot, T, 1>(call, kElementwiseGrain);
      } else {
        map_vectorised<Op, T, 2>(call, kPowGrain);
      }
      return;
    }
    if constexpr (sdk::is_integer_v<T> && std::is_signed_v<T>) {
      const sdk::StridedLoop loop{&call.inputs[0], &call.inputs[1]};
      bool invalid = false;
      loop.run([&](char* const* p, const int64_t* s, int64_t n) {
        for (int64_t i = 0; i < n; ++i) {
          const T a = *reinterpret_cast<const T*>(p[0] + i * s[0]);
          const T b = *reinterpret_cast<const T*>(p[1] + i * s[1]);
          invalid |= sdk::is_invalid_integer_pow(a, b);
        }
      });
      if (invalid) {
        sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "pow: integers to negative integer powers are not allowed");
      }
    }
    map_elements<T, T, T>(call, Op{});
  }
};

template <class T>
bool is_nonzero(T x) {
  return x != T(0);
}

// maximum/minimum: NaN if either operand is NaN.
template <bool kMax>
struct Extremum {
  template <class T>
  T operator()(T a, T b) const {
    if (a != a) return a;
    if (b != b) return b;
    if constexpr (kMax) {
      return a < b ? b : a;
    } else {
      return b < a ? b : a;
    }
  }
};

}  // namespace

void register_binary_kernels(const sdk::Registrar& r) {
  using sdk::FloatingTypes;
  using sdk::IntegralTypes;
  using sdk::NumericTypes;
  constexpr auto add = [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_same_v<T, bool>) {
      return a || b;
    } else if constexpr (sdk::is_integer_v<T>) {
      return sdk::wrap_add(a, b);
    } else {
      return a + b;
    }
  };
  constexpr auto mul = [](auto a, auto b) {
    using T = decltype(a);
    if constexpr (std::is_same_v<T, bool>) {
      return a && b;
    } else if constexpr (sdk::is_integer_v<T>) {
      return sdk::wrap_mul(a, b);
    } else {
      return a * b;
    }
  };
  add_binary(r, "add", sdk::AllTypes{}, add);
  add_binary(r, "mul", sdk::AllTypes{}, mul);
  add_binary(r, "sub", NumericTypes{}, [](auto a, auto b) {
    if constexpr (sdk::is_integer_v<decltype(a)>) {
      return sdk::wrap_sub(a, b);
    } else {
      return a - b;
    }
  });
  add_binary(r, "div", FloatingTypes{}, [](auto a, auto b) { return a / b; });
  register_op<DivisionKernel>(r, "floor_divide", NumericTypes{},
                              [](auto a, auto b) { return sdk::floor_divide(a, b); });
  register_op<DivisionKernel>(r, "remainder", NumericTypes{}, Remainder{});
  register_op<PowKernel>(r, "pow", NumericTypes{}, [](auto a, auto b) {
    if constexpr (sdk::is_integer_v<decltype(a)>) {
      return sdk::integer_pow(a, b);
    } else {
      return std::pow(a, b);
    }
  });
  add_binary(r, "maximum", sdk::AllTypes{}, Extremum<true>{});
  add_binary(r, "minimum", sdk::AllTypes{}, Extremum<false>{});
  register_op<VectorMathBinaryKernel>(r, "atan2", FloatingTypes{}, [](auto a, auto b) { return std::atan2(a, b); });
  add_binary(r, "bitwise_and", IntegralTypes{}, [](auto a, auto b) { return static_cast<decltype(a)>(a & b); });
  add_binary(r, "bitwise_or", IntegralTypes{}, [](auto a, auto b) { return static_cast<decltype(a)>(a | b); });
  add_binary(r, "bitwise_xor", IntegralTypes{}, [](auto a, auto b) { return static_cast<decltype(a)>(a ^ b); });
  add_predicate(r, "logical_and", [](auto a, auto b) { return is_nonzero(a) && is_nonzero(b); });
  add_predicate(r, "logical_or", [](auto a, auto b) { return is_nonzero(a) || is_nonzero(b); });
  add_predicate(r, "logical_xor", [](auto a, auto b) { return is_nonzero(a) != is_nonzero(b); });
  add_predicate(r, "eq", [](auto a, auto b) { return a == b; });
  add_predicate(r, "ne", [](auto a, auto b) { return a != b; });
  add_predicate(r, "lt", [](auto a, auto b) { return a < b; });
  add_predicate(r, "le", [](auto a, auto b) { return a <= b; });
  add_predicate(r, "gt", [](auto a, auto b) { return a > b; });
  add_predicate(r, "ge", [](auto a, auto b) { return a >= b; });
}

}  // namespace ember::cpu
