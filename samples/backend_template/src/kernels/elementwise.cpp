// Elementwise kernels: unary math, binary arithmetic and comparisons,
// where, copy (dtype conversion), fill and arange. The core hands them
// inputs already broadcast and converted, so each is a StridedLoop.
#include <cmath>

#include <ember/sdk/special_math.hpp>

#include "kernels.h"

namespace emu {

namespace {

// Integer arithmetic wraps (two's complement): sdk::wrap_add and its
// siblings (ember/sdk/scalar_rules.hpp) never evaluate a signed overflow.

// --- unary ------------------------------------------------------------------

// [guide:unary]
template <class Op>
struct Unary {
  template <class T>
  struct Kernel {
    static void run(const ember_kernel_call& call) {
      const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0]}, sdk::LoopOrder::Memory);
      sdk::transform<T, T>(loop, 0, loop.numel(), [](T x) { return T(Op{}(sdk::Compute<T>(x))); });
    }
  };
};
// [/guide:unary]

struct Neg {
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) return sdk::wrap_neg(x);
    else return -x;
  }
};
struct Abs {
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) return x;
    else if constexpr (std::is_integral_v<C>) return x < 0 ? sdk::wrap_neg(x) : x;
    else return std::fabs(x);
  }
};
struct Sign {
  template <class C>
  C operator()(C x) const { return x > C(0) ? C(1) : x < C(0) ? C(-1) : x; }
};

template <class T>
struct LogicalNot {
  static void run(const ember_kernel_call& call) {
    const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0]}, sdk::LoopOrder::Memory);
    sdk::transform<bool, T>(loop, 0, loop.numel(), [](T x) { return sdk::Compute<T>(x) == sdk::Compute<T>(0); });
  }
};

template <class T>
struct BitwiseNot {
  static void run(const ember_kernel_call& call) {
    const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0]}, sdk::LoopOrder::Memory);
    sdk::transform<T, T>(loop, 0, loop.numel(), [](T x) {
      if constexpr (std::is_same_v<T, bool>) return !x;
      else return T(~x);
    });
  }
};

// --- binary -----------------------------------------------------------------

// Out = T for arithmetic, bool for comparisons and logical ops.
template <class Op, bool kBoolOut = false>
struct Binary {
  template <class T>
  struct Kernel {
    static void run(const ember_kernel_call& call) {
      using Out = std::conditional_t<kBoolOut, bool, T>;
      const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0], &call.inputs[1]}, sdk::LoopOrder::Memory);
      sdk::transform<Out, T, T>(loop, 0, loop.numel(),
                                [](T a, T b) { return Out(Op{}(sdk::Compute<T>(a), sdk::Compute<T>(b))); });
    }
  };
};

struct Add {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) return a || b;
    else if constexpr (std::is_integral_v<C>) return sdk::wrap_add(a, b);
    else return a + b;
  }
};
struct Sub {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) return sdk::wrap_sub(a, b);
    else return a - b;
  }
};
struct Mul {
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_same_v<C, bool>) return a && b;
    else if constexpr (std::is_integral_v<C>) return sdk::wrap_mul(a, b);
    else return a * b;
  }
};
struct Div {
  template <class C>
  C operator()(C a, C b) const { return a / b; }
};
// NaN wins in maximum and minimum.
struct Maximum {
  template <class C>
  C operator()(C a, C b) const { return a != a ? a : b != b ? b : (a > b ? a : b); }
};
struct Minimum {
  template <class C>
  C operator()(C a, C b) const { return a != a ? a : b != b ? b : (a < b ? a : b); }
};
struct BitAnd {
  template <class C>
  C operator()(C a, C b) const { return C(a & b); }
};
struct BitOr {
  template <class C>
  C operator()(C a, C b) const { return C(a | b); }
};
struct BitXor {
  template <class C>
  C operator()(C a, C b) const { return C(a ^ b); }
};
struct Eq {
  template <class C>
  bool operator()(C a, C b) const { return a == b; }
};
struct Ne {
  template <class C>
  bool operator()(C a, C b) const { return a != b; }
};
struct Lt {
  template <class C>
  bool operator()(C a, C b) const { return a < b; }
};
struct Le {
  template <class C>
  bool operator()(C a, C b) const { return a <= b; }
};
struct Gt {
  template <class C>
  bool operator()(C a, C b) const { return a > b; }
};
struct Ge {
  template <class C>
  bool operator()(C a, C b) const { return a >= b; }
};
struct LogicalAnd {
  template <class C>
  bool operator()(C a, C b) const { return a != C(0) && b != C(0); }
};
struct LogicalOr {
  template <class C>
  bool operator()(C a, C b) const { return a != C(0) || b != C(0); }
};
struct LogicalXor {
  template <class C>
  bool operator()(C a, C b) const { return (a != C(0)) != (b != C(0)); }
};

template <class T>
struct Where {
  static void run(const ember_kernel_call& call) {
    const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0], &call.inputs[1], &call.inputs[2]},
                                sdk::LoopOrder::Memory);
    sdk::transform<T, bool, T, T>(loop, 0, loop.numel(), [](bool c, T a, T b) { return c ? a : b; });
  }
};

// --- conversion and factories -------------------------------------------------

template <class Src>
struct Copy {
  static void run(const ember_kernel_call& call) {
    const DLTensor& out = call.outputs[0];
    const sdk::StridedLoop loop({&out, &call.inputs[0]}, sdk::LoopOrder::Memory);
    sdk::visit_dtype(sdk::dtype_of(out), [&](auto tag) {
      using Dst = typename decltype(tag)::type;
      sdk::transform<Dst, Src>(loop, 0, loop.numel(), [](Src x) { return sdk::convert<Dst>(x); });
    });
  }
};

template <class T>
T attr_value(const ember_kernel_call& call, const char* name) {
  if constexpr (sdk::is_floating_v<T>)
    return T(static_cast<sdk::Compute<T>>(sdk::attr_float(call, name)));
  else return static_cast<T>(sdk::attr_int(call, name));
}

template <class T>
struct Fill {
  static void run(const ember_kernel_call& call) {
    const T value = attr_value<T>(call, "value");
    const sdk::StridedLoop loop({&call.outputs[0]}, sdk::LoopOrder::Memory);
    sdk::transform<T>(loop, 0, loop.numel(), [value] { return value; });
  }
};

template <class T>
struct Arange {
  static void run(const ember_kernel_call& call) {
    const DLTensor& out = call.outputs[0];
    T* data = reinterpret_cast<T*>(sdk::data_ptr(out));
    if constexpr (sdk::is_floating_v<T>) {
      const double start = sdk::attr_float(call, "start"), step = sdk::attr_float(call, "step");
      for (int64_t i = 0; i < out.shape[0]; ++i) {
        data[i * out.strides[0]] = T(static_cast<sdk::Compute<T>>(start + static_cast<double>(i) * step));
      }
    } else {
      const int64_t start = sdk::attr_int(call, "start"), step = sdk::attr_int(call, "step");
      for (int64_t i = 0; i < out.shape[0]; ++i) {
        data[i * out.strides[0]] = static_cast<T>(sdk::wrap_add(start, sdk::wrap_mul(i, step)));
      }
    }
  }
};

}  // namespace

void register_elementwise_kernels(const sdk::Registrar& r) {
  const sdk::FloatingTypes floating;
  const sdk::NumericTypes numeric;
  const sdk::IntegralTypes integral;
  const sdk::AllTypes all;
  // [guide:register_unary]
  sdk::add_each<Unary<decltype([](auto x) { return std::exp(x); })>::Kernel, QueueOnStream>(r, "exp", floating);
  // [/guide:register_unary]
  sdk::add_each<Unary<Neg>::Kernel, QueueOnStream>(r, "neg", numeric);
  sdk::add_each<Unary<Abs>::Kernel, QueueOnStream>(r, "abs", numeric);
  sdk::add_each<Unary<Sign>::Kernel, QueueOnStream>(r, "sign", numeric);
  sdk::add_each<Unary<decltype([](auto x) { return std::log(x); })>::Kernel, QueueOnStream>(r, "log", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::log1p(x); })>::Kernel, QueueOnStream>(r, "log1p", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::expm1(x); })>::Kernel, QueueOnStream>(r, "expm1", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::sqrt(x); })>::Kernel, QueueOnStream>(r, "sqrt", floating);
  sdk::add_each<Unary<decltype([](auto x) { return decltype(x)(1) / std::sqrt(x); })>::Kernel, QueueOnStream>(
      r, "rsqrt", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::sin(x); })>::Kernel, QueueOnStream>(r, "sin", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::cos(x); })>::Kernel, QueueOnStream>(r, "cos", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::tan(x); })>::Kernel, QueueOnStream>(r, "tan", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::tanh(x); })>::Kernel, QueueOnStream>(r, "tanh", floating);
  sdk::add_each<Unary<decltype([](auto x) { return decltype(x)(1) / (decltype(x)(1) + std::exp(-x)); })>::Kernel,
                QueueOnStream>(r, "sigmoid", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::erf(x); })>::Kernel, QueueOnStream>(r, "erf", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::erfc(x); })>::Kernel, QueueOnStream>(r, "erfc", floating);
  sdk::add_each<Unary<decltype([](auto x) { return sdk::erfinv(x); })>::Kernel, QueueOnStream>(r, "erfinv", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::asin(x); })>::Kernel, QueueOnStream>(r, "asin", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::acos(x); })>::Kernel, QueueOnStream>(r, "acos", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::atan(x); })>::Kernel, QueueOnStream>(r, "atan", floating);
  sdk::add_each<Unary<decltype([](auto x) { return sdk::lgamma(x); })>::Kernel, QueueOnStream>(r, "lgamma", floating);
  sdk::add_each<Unary<decltype([](auto x) { return sdk::digamma(x); })>::Kernel, QueueOnStream>(r, "digamma",
                                                                                                floating);
  sdk::add_each<Unary<decltype([](auto x) { return decltype(x)(1) / x; })>::Kernel, QueueOnStream>(r, "reciprocal",
                                                                                                   floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::floor(x); })>::Kernel, QueueOnStream>(r, "floor", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::ceil(x); })>::Kernel, QueueOnStream>(r, "ceil", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::trunc(x); })>::Kernel, QueueOnStream>(r, "trunc", floating);
  sdk::add_each<Unary<decltype([](auto x) { return std::nearbyint(x); })>::Kernel, QueueOnStream>(r, "round", floating);
  sdk::add_each<LogicalNot, QueueOnStream>(r, "logical_not", all);
  sdk::add_each<BitwiseNot, QueueOnStream>(r, "bitwise_not", integral);

  sdk::add_each<Binary<Add>::Kernel, QueueOnStream>(r, "add", all);
  sdk::add_each<Binary<Sub>::Kernel, QueueOnStream>(r, "sub", numeric);
  sdk::add_each<Binary<Mul>::Kernel, QueueOnStream>(r, "mul", all);
  sdk::add_each<Binary<Div>::Kernel, QueueOnStream>(r, "div", floating);
  sdk::add_each<Binary<Maximum>::Kernel, QueueOnStream>(r, "maximum", all);
  sdk::add_each<Binary<Minimum>::Kernel, QueueOnStream>(r, "minimum", all);
  sdk::add_each<Binary<decltype([](auto a, auto b) { return std::atan2(a, b); })>::Kernel, QueueOnStream>(r, "atan2",
                                                                                                      floating);
  sdk::add_each<Binary<BitAnd>::Kernel, QueueOnStream>(r, "bitwise_and", integral);
  sdk::add_each<Binary<BitOr>::Kernel, QueueOnStream>(r, "bitwise_or", integral);
  sdk::add_each<Binary<BitXor>::Kernel, QueueOnStream>(r, "bitwise_xor", integral);
  sdk::add_each<Binary<Eq, true>::Kernel, QueueOnStream>(r, "eq", all);
  sdk::add_each<Binary<Ne, true>::Kernel, QueueOnStream>(r, "ne", all);
  sdk::add_each<Binary<Lt, true>::Kernel, QueueOnStream>(r, "lt", all);
  sdk::add_each<Binary<Le, true>::Kernel, QueueOnStream>(r, "le", all);
  sdk::add_each<Binary<Gt, true>::Kernel, QueueOnStream>(r, "gt", all);
  sdk::add_each<Binary<Ge, true>::Kernel, QueueOnStream>(r, "ge", all);
  sdk::add_each<Binary<LogicalAnd, true>::Kernel, QueueOnStream>(r, "logical_and", all);
  sdk::add_each<Binary<LogicalOr, true>::Kernel, QueueOnStream>(r, "logical_or", all);
  sdk::add_each<Binary<LogicalXor, true>::Kernel, QueueOnStream>(r, "logical_xor", all);
  sdk::add_each<Where, QueueOnStream>(r, "where", all);

  sdk::add_each<Copy, QueueOnStream>(r, "copy", all);
  sdk::add_each<Fill, QueueOnStream>(r, "fill", all);
  sdk::add_each<Arange, QueueOnStream>(r, "arange", numeric);
}

}  // namespace emu
