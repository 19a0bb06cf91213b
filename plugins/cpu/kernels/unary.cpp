// Elementwise unary ops (ops.md "Elementwise unary").
#include "vector_math.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

#include <ember/sdk/special_math.hpp>

#include "elementwise.h"
#include "kernels.h"
#include "logistic.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

struct UnaryKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    map_elements<T, T>(call, Op{});
  }
};

// neg, abs and sign: floating types through one-pass loops (Note [One-pass
// exact arithmetic]).
struct ExactUnaryKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    if constexpr (sdk::is_floating_v<T>) {
      map_exact<Op, T, 1>(call, kElementwiseGrain);
    } else {
      map_elements<T, T>(call, Op{});
    }
  }
};

struct UnaryPredicateKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    map_elements<bool, T>(call, Op{});
  }
};

// Floating ops whose loops vectorise on every ISA (Note [Vector math
// clones]), kept on the calling thread up to kGrain elements (Note [Grain
// sizes]).
template <int64_t kGrain>
struct VectorMathKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    map_vectorised<Op, T, 1>(call, kGrain);
  }
};

template <int64_t kGrain = kVectorMathGrain, class Op>
void add_vector_math(const sdk::Registrar& r, const char* name, Op op) {
  register_op<VectorMathKernel<kGrain>>(r, name, sdk::FloatingTypes{}, op);
}

// erf costs about twice the other libmvec functions (0.35 ns an element).
constexpr int64_t kErfGrain = grain_for(0.35);


template <class Op, class Types>
void add_unary(const sdk::Registrar& r, const char* name, Types types, Op op) {
  register_op<UnaryKernel>(r, name, types, op);
}

template <class T>
T negate(T x) {
  if constexpr (sdk::is_integer_v<T>) {
    return sdk::wrap_neg(x);
  } else {
    return -x;
  }
}

}  // namespace

void register_unary_kernels(const sdk::Registrar& r) {
  using sdk::FloatingTypes;
  register_op<ExactUnaryKernel>(r, "neg", sdk::NumericTypes{}, [](auto x) { return negate(x); });
  register_op<ExactUnaryKernel>(r, "abs", sdk::NumericTypes{}, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);  // abs(-0.0) is +0.0
    } else {
      return x < T(0) ? negate(x) : x;  // abs(INT_MIN) wraps
    }
  });
  register_op<ExactUnaryKernel>(r, "sign", sdk::NumericTypes{}, [](auto x) {
    using T = decltype(x);
    if (x != x) return x;  // NaN stays NaN
    return static_cast<T>((T(0) < x) - (x < T(0)));
  });
  add_vector_math(r, "exp", [](auto x) { return std::exp(x); });
  add_vector_math(r, "log", [](auto x) { return std::log(x); });
  add_vector_math(r, "log1p", [](auto x) { return std::log1p(x); });
  add_vector_math(r, "expm1", [](auto x) { return std::expm1(x); });
  add_vector_math<kElementwiseGrain>(r, "sqrt", [](auto x) { return std::sqrt(x); });
  add_vector_math<kElementwiseGrain>(r, "rsqrt", [](auto x) { return decltype(x)(1) / std::sqrt(x); });
  add_vector_math(r, "sin", [](auto x) { return std::sin(x); });
  add_vector_math(r, "cos", [](auto x) { return std::cos(x); });
  add_vector_math(r, "tan", [](auto x) { return std::tan(x); });
  add_vector_math(r, "tanh", [](auto x) { return std::tanh(x); });
  add_vector_math(r, "sigmoid", [](auto x) { return Logistic<decltype(x)>(x).value; });
  add_vector_math<kErfGrain>(r, "erf", [](auto x) { return std::erf(x); });
  add_vector_math<kErfGrain>(r, "erfc", [](auto x) { return std::erfc(x); });
  add_vector_math(r, "asin", [](auto x) { return std::asin(x); });
  add_vector_math(r, "acos", [](auto x) { return std::acos(x); });
  add_vector_math(r, "atan", [](auto x) { return std::atan(x); });
  // No libmvec variant: one call an element, in the SDK's double algorithm.
  add_unary(r, "erfinv", FloatingTypes{}, [](auto x) { return sdk::erfinv(x); });
  add_unary(r, "lgamma", FloatingTypes{}, [](auto x) { return sdk::lgamma(x); });
  add_unary(r, "digamma", FloatingTypes{}, [](auto x) { return sdk::digamma(x); });
  add_vector_math<kElementwiseGrain>(r, "reciprocal", [](auto x) { return decltype(x)(1) / x; });
  add_vector_math<kElementwiseGrain>(r, "floor", [](auto x) { return std::floor(x); });
  add_vector_math<kElementwiseGrain>(r, "ceil", [](auto x) { return std::ceil(x); });
  add_vector_math<kElementwiseGrain>(r, "trunc", [](auto x) { return std::trunc(x); });
  add_vector_math<kElementwiseGrain>(r, "round", [](auto x) { return std::nearbyint(x); });
  add_unary(r, "bitwise_not", sdk::IntegralTypes{}, [](auto x) {
    if constexpr (std::is_same_v<decltype(x), bool>) {
      return !x;
    } else {
      return static_cast<decltype(x)>(~x);
    }
  });
  register_op<UnaryPredicateKernel>(r, "logical_not", sdk::AllTypes{}, [](auto x) { return x == decltype(x)(0); });
}

}  // namespace ember::cpu
