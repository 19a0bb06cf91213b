// Elementwise unary ops (ops.md "Elementwise unary").
#include "vector_math.h"

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

struct UnaryKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    map_elements<T, T>(call, Op{});
  }
};

struct UnaryPredicateKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    map_elements<bool, T>(call, Op{});
  }
};

// Note [Vector math clones]: the kernels of functions libmvec provides (Note
// [Vector math]) run contiguous stretches through a loop with ISA clones
// (Note [ISA clones]): the vectoriser picks libmvec's variant for each
// clone's ISA, so AVX-512 machines call the 16-wide float variants
// (_ZGVeN16v_sinf and friends, at most 4 ulp like the 4-wide SSE ones the
// baseline build calls) and AVX2 machines the 8-wide ones.
template <class Op, class T>
EMBER_CPU_ISA_CLONES void map_contiguous(const T* in, T* out, int64_t n) {
  const Op op{};
  for (int64_t i = 0; i < n; ++i) out[i] = op(in[i]);
}

struct VectorMathKernel {
  template <class Op, class T>
  static void run(const ember_kernel_call& call) {
    if constexpr (std::is_floating_point_v<T>) {
      const sdk::StridedLoop loop{&call.outputs[0], &call.inputs[0]};
      parallel_for(0, loop.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
        loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
          const int64_t size = static_cast<int64_t>(sizeof(T));
          if (strides[0] == size && strides[1] == size) {
            map_contiguous<Op, T>(reinterpret_cast<const T*>(ptrs[1]), reinterpret_cast<T*>(ptrs[0]), n);
            return;
          }
          const Op op{};
          for (int64_t i = 0; i < n; ++i) {
            *reinterpret_cast<T*>(ptrs[0] + i * strides[0]) = op(*reinterpret_cast<const T*>(ptrs[1] + i * strides[1]));
          }
        });
      });
    } else {
      // float16 and bfloat16 compute in float32 through the generic map.
      UnaryKernel::run<Op, T>(call);
    }
  }
};

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
  add_unary(r, "neg", sdk::NumericTypes{}, [](auto x) { return negate(x); });
  add_unary(r, "abs", sdk::NumericTypes{}, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);  // abs(-0.0) is +0.0
    } else {
      return x < T(0) ? negate(x) : x;  // abs(INT_MIN) wraps
    }
  });
  add_unary(r, "sign", sdk::NumericTypes{}, [](auto x) {
    using T = decltype(x);
    if (x != x) return x;  // NaN stays NaN
    return static_cast<T>((T(0) < x) - (x < T(0)));
  });
  register_op<VectorMathKernel>(r, "exp", FloatingTypes{}, [](auto x) { return std::exp(x); });
  register_op<VectorMathKernel>(r, "log", FloatingTypes{}, [](auto x) { return std::log(x); });
  add_unary(r, "log1p", FloatingTypes{}, [](auto x) { return std::log1p(x); });
  add_unary(r, "expm1", FloatingTypes{}, [](auto x) { return std::expm1(x); });
  add_unary(r, "sqrt", FloatingTypes{}, [](auto x) { return std::sqrt(x); });
  add_unary(r, "rsqrt", FloatingTypes{}, [](auto x) { return decltype(x)(1) / std::sqrt(x); });
  register_op<VectorMathKernel>(r, "sin", FloatingTypes{}, [](auto x) { return std::sin(x); });
  register_op<VectorMathKernel>(r, "cos", FloatingTypes{}, [](auto x) { return std::cos(x); });
  add_unary(r, "tan", FloatingTypes{}, [](auto x) { return std::tan(x); });
  add_unary(r, "tanh", FloatingTypes{}, [](auto x) { return std::tanh(x); });
  register_op<VectorMathKernel>(r, "sigmoid", FloatingTypes{},
                                [](auto x) { return decltype(x)(1) / (decltype(x)(1) + std::exp(-x)); });
  add_unary(r, "erf", FloatingTypes{}, [](auto x) { return std::erf(x); });
  add_unary(r, "reciprocal", FloatingTypes{}, [](auto x) { return decltype(x)(1) / x; });
  add_unary(r, "floor", FloatingTypes{}, [](auto x) { return std::floor(x); });
  add_unary(r, "ceil", FloatingTypes{}, [](auto x) { return std::ceil(x); });
  add_unary(r, "trunc", FloatingTypes{}, [](auto x) { return std::trunc(x); });
  add_unary(r, "round", FloatingTypes{}, [](auto x) { return std::nearbyint(x); });
  add_unary(r, "bitwise_not", sdk::IntegralTypes{}, [](auto x) {
    if constexpr (std::is_same_v<decltype(x), bool>) {
      return !x;
    } else {
      return static_cast<decltype(x)>(~x);
    }
  });
  register_op<UnaryPredicateKernel>(r, "logical_not", sdk::AllTypes{},
                                    [](auto x) { return x == decltype(x)(0); });
}

}  // namespace ember::cpu
