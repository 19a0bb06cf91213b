// gelu and gelu_backward, the fused kernels of a composite (ops.md
// "Composite ops a backend may override"): one pass over x (and dy) where
// the decomposition makes five, and eight for the gradient.
#include "vector_math.h"

#include <cmath>

#include "kernels.h"
#include "logistic.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

constexpr double kSqrtHalf = 0.70710678118654752440;      // 1 / sqrt(2)
constexpr double kInvSqrtTwoPi = 0.39894228040143267794;  // 1 / sqrt(2 pi)
constexpr double kTwiceTanhScale = 1.59576912160573071176;  // 2 sqrt(2 / pi)
constexpr double kCubic = 0.044715;

// Note [gelu without cancellation]: the tanh form as written adds 1 to a
// tanh that goes to -1 as x goes to -inf, which leaves only rounding error
// once gelu(x) is small: in float32, 0 or an error of 1e-6 for x near -5.
// (1 + tanh(u)) / 2 = sigmoid(2 u), with sigmoid and 1 - sigmoid as
// Logistic computes them (logistic.h), is the same function with its
// relative accuracy kept everywhere, and costs one exp where tanh costs
// more. The exact form keeps PyTorch's 1 + erf(x / sqrt(2)), whose tail has
// the same cancellation: erfc(-x / sqrt(2)) would mend it, but costs 2.5
// times erf in libmvec, and PyTorch's numbers are what programs compare with.
template <class C>
C normal_cdf(C x) {
  return C(0.5) * (C(1) + std::erf(x * C(kSqrtHalf)));
}

struct GeluErf {
  template <class C>
  C operator()(C x) const {
    return x * normal_cdf(x);
  }
};

struct GeluTanh {
  template <class C>
  C operator()(C x) const {
    return x * Logistic<C>(C(kTwiceTanhScale) * (x + C(kCubic) * x * x * x)).value;
  }
};

// dy * (Phi(x) + x * phi(x)), phi the normal density.
struct GeluErfBackward {
  template <class C>
  C operator()(C dy, C x) const {
    const C pdf = C(kInvSqrtTwoPi) * std::exp(C(-0.5) * x * x);
    return dy * (normal_cdf(x) + x * pdf);
  }
};

// d/dx x sigmoid(z(x)) = s + x s (1 - s) z'(x).
struct GeluTanhBackward {
  template <class C>
  C operator()(C dy, C x) const {
    const Logistic<C> s(C(kTwiceTanhScale) * (x + C(kCubic) * x * x * x));
    const C slope = C(kTwiceTanhScale) * (C(1) + C(3 * kCubic) * x * x);
    return dy * (s.value + x * s.value * s.complement * slope);
  }
};

// erf costs about twice the other libmvec functions; the backward adds exp.
constexpr int64_t kGeluGrain = grain_for(0.5);

// The `approximate` attribute picks the form: 0 exact, 1 tanh.
template <class Exact, class Tanh, size_t kInputs, class T>
void by_form(const ember_kernel_call& call) {
  if (sdk::attr_int(call, "approximate") != 0) {
    map_vectorised<Tanh, T, kInputs>(call, kGeluGrain);
  } else {
    map_vectorised<Exact, T, kInputs>(call, kGeluGrain);
  }
}

template <class Exact, class Tanh, size_t kInputs>
void add_gelu_op(const sdk::Registrar& r, const char* name) {
  r.add_each(name, sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&by_form<Exact, Tanh, kInputs, typename decltype(tag)::type>>;
  });
}

}  // namespace

void register_gelu_kernels(const sdk::Registrar& r) {
  add_gelu_op<GeluErf, GeluTanh, 1>(r, "gelu");
  add_gelu_op<GeluErfBackward, GeluTanhBackward, 2>(r, "gelu_backward");
}

}  // namespace ember::cpu
