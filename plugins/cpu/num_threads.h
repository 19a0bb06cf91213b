// How many threads the CPU plugin's kernels use: Note [CPU thread count].
#ifndef EMBER_PLUGINS_CPU_NUM_THREADS_H_
#define EMBER_PLUGINS_CPU_NUM_THREADS_H_

#include <optional>

namespace ember::cpu {

// Threads a kernel may use at once, the calling thread included: the last
// set_num_threads() value, else default_num_threads(). Always >= 1.
int num_threads();

// Applies from the next kernel on; fails with INVALID_ARGUMENT below 1.
void set_num_threads(int threads);

// EMBER_NUM_THREADS, else OMP_NUM_THREADS, else the physical cores of the
// CPUs this process may run on (sched_getaffinity). Read once.
int default_num_threads();

// A thread count as the variables above spell it: a positive decimal integer,
// optionally followed by ",..." (OpenMP's per-level list; the first level
// counts). Anything else is nullopt.
std::optional<int> parse_num_threads(const char* text);

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_NUM_THREADS_H_
