// How much work a kernel keeps on the calling thread: Note [Grain sizes].
#ifndef EMBER_PLUGINS_CPU_KERNELS_GRAIN_H_
#define EMBER_PLUGINS_CPU_KERNELS_GRAIN_H_

#include <cstdint>

namespace ember::cpu {

// Note [Grain sizes]: splitting a kernel over threads pays only once each
// piece outlasts the time a worker takes to join it: about 3 us on the
// 2-core benchmark machine with other processes running (a range of work
// that takes 6 us on one core first ran faster on two), less on an idle
// one. A parallel_for keeps a range of at most its grain on the calling
// thread (Note [Work-claiming parallel loop]); each op family's grain is the
// number of its elements that one core handles in kParallelWorthNs, from the
// family's cost per element measured on one core with the data in L2
// (`bench/eager_ops_bench.py --costs` prints them; docs/benchmarks.md
// records the figures these constants come from). A cheap family (sum)
// needs a long range to be worth a second thread, an expensive one (erf,
// random numbers) a short one.
inline constexpr double kParallelWorthNs = 6000;

constexpr int64_t grain_for(double ns_per_element) { return static_cast<int64_t>(kParallelWorthNs / ns_per_element); }

// Elementwise arithmetic (square roots and rounding included), comparisons,
// fills and same-dtype copies: about 0.1 ns an element.
inline constexpr int64_t kElementwiseGrain = grain_for(0.1);
// libmvec's functions (exp, log, sin, cos, tan, tanh, sigmoid, expm1,
// log1p) and float16/bfloat16 arithmetic: about 0.18 ns.
inline constexpr int64_t kVectorMathGrain = grain_for(0.18);

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_GRAIN_H_
