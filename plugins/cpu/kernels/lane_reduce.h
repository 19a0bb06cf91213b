// Reductions over a run of elements that vectorise without reassociating
// (Note [Lane reductions]), shared by the reduction kernels and the fused
// kernels that reduce rows (softmax, layer_norm, cross_entropy).
#ifndef EMBER_PLUGINS_CPU_KERNELS_LANE_REDUCE_H_
#define EMBER_PLUGINS_CPU_KERNELS_LANE_REDUCE_H_

#include <algorithm>
#include <cstdint>
#include <limits>

#include "elementwise.h"

namespace ember::cpu {

// Note [Lane reductions]: the vectoriser may not reorder floating-point
// additions (-O3 without -ffast-math), so a plain `acc += x[i]` loop runs
// one element at a time. A lane reduction keeps kLanes independent partial
// results, lane j combining elements j, j + kLanes, ... in order, and merges
// them in a fixed tree at the end: the loop over lanes is SIMD code on every
// ISA clone (Note [ISA clones]) and the result is the same on all of them.
// Above kPairwiseBlock elements a run is split in halves (pairwise
// summation), so a float32 sum's rounding error grows with log(n), not n.
inline constexpr int kLanes = 64;
inline constexpr int64_t kPairwiseBlock = 8192;

// lanes[j] = combine(lanes[j], load(i)) for i in [begin, end) with
// i - begin = j mod kLanes, in order. Always inlined, like fold_lanes, so
// that it runs on the ISA of the clone that calls it (Note [ISA clones]).
template <class Acc, class Combine, class Load>
inline __attribute__((always_inline)) void accumulate_lanes(Acc* lanes, int64_t begin, int64_t end, Acc identity,
                                                            const Combine& combine, const Load& load) {
  int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] = combine(lanes[j], load(i + j));
  }
  // The rest (all of a short run) in one more pass over the lanes, those
  // past the end combining the identity: masked loads on AVX2 and AVX-512,
  // so a line of 16 costs one vector step, not 16 dependent scalar ones.
  const int64_t rest = end - i;
  for (int j = 0; j < kLanes; ++j) lanes[j] = combine(lanes[j], j < rest ? load(i + j) : identity);
}

// The lanes combined in a fixed tree: halves, written out so that each is
// one vector step, down to the last four, which stay in registers.
template <class Acc, class Combine>
inline __attribute__((always_inline)) Acc fold_lanes(Acc* lanes, const Combine& combine) {
  static_assert(kLanes == 64);
  for (int j = 0; j < 32; ++j) lanes[j] = combine(lanes[j], lanes[j + 32]);
  for (int j = 0; j < 16; ++j) lanes[j] = combine(lanes[j], lanes[j + 16]);
  for (int j = 0; j < 8; ++j) lanes[j] = combine(lanes[j], lanes[j + 8]);
  for (int j = 0; j < 4; ++j) lanes[j] = combine(lanes[j], lanes[j + 4]);
  return combine(combine(lanes[0], lanes[2]), combine(lanes[1], lanes[3]));
}

// The reduction of load(begin..end) in lanes, for at most kPairwiseBlock
// elements.
template <class Acc, class Combine, class Load>
EMBER_CPU_ISA_CLONES Acc reduce_block(int64_t begin, int64_t end, Acc identity, Combine combine, Load load) {
  Acc lanes[kLanes];
  std::fill(lanes, lanes + kLanes, identity);
  accumulate_lanes(lanes, begin, end, identity, combine, load);
  return fold_lanes(lanes, combine);
}

// The reduction of load(begin..end) with an associative combine, in lanes
// and pairwise halves (Note [Lane reductions]).
template <class Acc, class Combine, class Load>
Acc reduce_lanes(int64_t begin, int64_t end, Acc identity, const Combine& combine, const Load& load) {
  const int64_t n = end - begin;
  if (n > kPairwiseBlock) {
    const int64_t half = (n / 2 + kLanes - 1) / kLanes * kLanes;
    return combine(reduce_lanes(begin, begin + half, identity, combine, load),
                   reduce_lanes(begin + half, end, identity, combine, load));
  }
  return reduce_block(begin, end, identity, combine, load);
}

// The larger (kMax) or smaller of a and b, and NaN if either is NaN (a NaN
// `a` is kept since no comparison with it is true). Written without branches
// so that lane loops vectorise.
template <bool kMax, class Acc>
Acc extremum_propagating_nan(Acc a, Acc b) {
  const bool take_b = kMax ? (b > a) | (b != b) : (b < a) | (b != b);
  return take_b ? b : a;
}

// Sum and maximum of n contiguous values, converted to the compute type Acc
// on load (float16 and bfloat16 widen to float32).
template <class Acc, class T>
Acc sum_of(const T* x, int64_t n) {
  return reduce_lanes(
      int64_t{0}, n, Acc(0), [](Acc a, Acc b) { return a + b; },
      [x](int64_t i) { return static_cast<Acc>(sdk::to_compute(x[i])); });
}

// The largest of n contiguous values, for callers whose result is NaN
// whenever an input is NaN anyway (softmax: exp(NaN - max) makes the sum
// NaN): with a NaN among the values it is some value of the run. That lets
// the lanes and their fold use the processor's max instructions, where a
// NaN-propagating maximum (extremum_propagating_nan) needs a select, which
// scalar code turns into unpredictable branches.
template <class Acc, class T>
Acc max_of(const T* x, int64_t n) {
  return reduce_lanes(
      int64_t{0}, n, -std::numeric_limits<Acc>::infinity(), [](Acc a, Acc b) { return b > a ? b : a; },
      [x](int64_t i) { return static_cast<Acc>(sdk::to_compute(x[i])); });
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_LANE_REDUCE_H_
