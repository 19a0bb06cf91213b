// What the reductions combine (reduce.cu): an accumulator per reduction,
// its identity, how an element enters it and how two combine. Compiled for
// both sides, so tests/test_device_functions.cu checks them on the host.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "elementwise_ops.cuh"
#include "scalar.cuh"

namespace ember::gpu {

// Accumulator of sum, prod and mean: float32 for float16/bfloat16/float32,
// float64 for float64, int64 for every integral dtype (bool included).
template <class T>
using sum_acc_t = std::conditional_t<is_floating_v<T>, std::conditional_t<std::is_same_v<T, double>, double, float>,
                                     int64_t>;

template <class T>
struct SumReducer {
  using Acc = sum_acc_t<T>;
  EMBER_HOST_DEVICE Acc identity() const { return Acc(0); }
  EMBER_HOST_DEVICE Acc lift(T x, int64_t) const { return static_cast<Acc>(to_compute(x)); }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const { return ops::Add{}(a, b); }
};

template <class T>
struct ProdReducer {
  using Acc = sum_acc_t<T>;
  EMBER_HOST_DEVICE Acc identity() const { return Acc(1); }
  EMBER_HOST_DEVICE Acc lift(T x, int64_t) const { return static_cast<Acc>(to_compute(x)); }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const { return ops::Mul{}(a, b); }
};

template <class C, bool kMax>
EMBER_HOST_DEVICE C lowest_for() {
  if constexpr (std::is_floating_point_v<C>) {
    return kMax ? -INFINITY : INFINITY;
  } else {
    return kMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  }
}

// amax and amin: NaN wins.
template <class T, bool kMax>
struct ExtremeReducer {
  using Acc = Compute<T>;
  EMBER_HOST_DEVICE Acc identity() const { return lowest_for<Acc, kMax>(); }
  EMBER_HOST_DEVICE Acc lift(T x, int64_t) const { return to_compute(x); }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const { return ops::Extremum<kMax>{}(a, b); }
};

template <class C>
struct ValueIndex {
  C value;
  int64_t index;
};

// argmax and argmin: the first position of the extreme, NaN counting as
// the extreme. `combine` picks the same winner in any order of operands,
// so the parallel tree gives what a sequential scan would.
template <class T, bool kMax>
struct ArgReducer {
  using C = Compute<T>;
  using Acc = ValueIndex<C>;
  EMBER_HOST_DEVICE Acc identity() const { return {lowest_for<C, kMax>(), INT64_MAX}; }
  EMBER_HOST_DEVICE Acc lift(T x, int64_t j) const { return {to_compute(x), j}; }
  EMBER_HOST_DEVICE Acc combine(Acc a, Acc b) const {
    const bool a_nan = ops::is_nan(a.value), b_nan = ops::is_nan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index <= b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.value == b.value) return a.index <= b.index ? a : b;
    return (kMax ? a.value > b.value : a.value < b.value) ? a : b;
  }
};

// What is stored: the accumulator (sum, prod), over n (mean), or the index.
enum class Finish { kValue, kMean, kIndex };

template <class Out, Finish kFinish, class Acc>
EMBER_HOST_DEVICE Out finish(Acc acc, int64_t n) {
  if constexpr (kFinish == Finish::kIndex) {
    return acc.index;
  } else if constexpr (kFinish == Finish::kMean) {
    return convert<Out>(acc / static_cast<Acc>(n));
  } else {
    return convert<Out>(acc);
  }
}

}  // namespace ember::gpu
