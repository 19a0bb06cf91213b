#pragma once

#include <string>

// Intra-op parallelism: how many host threads one kernel may use, as
// torch.set_num_threads and torch.get_num_threads set and read it.

namespace ember {

// Sets how many threads each kernel of a plugin that runs kernels on host
// threads (the CPU plugin) may use at once, the calling thread included,
// from the next kernel on. Discovers plugins first and reaches every plugin
// loaded by then. Throws a Runtime error unless num_threads >= 1.
void set_num_threads(int num_threads);

// The CPU plugin's thread count: the last set_num_threads() value, else its
// default (docs/plugins.md "Threads"). 1 when no plugin provides the cpu
// device or that plugin does not say.
int get_num_threads();

// How the idle threads of the OpenMP runtime that runs oneDNN (libgomp) wait
// for work, and who chose it: Ember's bound, the environment's
// GOMP_SPINCOUNT or OMP_WAIT_POLICY, or libgomp's default when another
// library loaded libgomp first (docs/plugins.md "Threads"). Discovers
// plugins first.
std::string openmp_wait_policy();

}  // namespace ember
