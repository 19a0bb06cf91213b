// logistic.h -- the logistic sigmoid and its complement, as the sigmoid
// kernel and gelu's tanh form compute them.
#ifndef EMBER_PLUGINS_CPU_KERNELS_LOGISTIC_H_
#define EMBER_PLUGINS_CPU_KERNELS_LOGISTIC_H_

#include <cmath>

namespace ember::cpu {

// 1 / (1 + exp(-|z|)) for z >= 0 and e / (1 + e) below, and 1 - sigmoid
// the other way round: exp never overflows, so large negative z keeps its
// tiny (subnormal) result instead of 1 / (1 + inf) = 0, and neither value
// is a difference that cancels. Branch-free, so loops vectorise; a caller
// that reads only `value` pays nothing for `complement`.
template <class C>
struct Logistic {
  C value, complement;
  explicit Logistic(C z) {
    const C e = std::exp(-std::fabs(z));
    const C r = C(1) / (C(1) + e);
    value = z >= C(0) ? r : e * r;
    complement = z >= C(0) ? e * r : r;
  }
};

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_LOGISTIC_H_
