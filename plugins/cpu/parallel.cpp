#include "parallel.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>

#include <ember/ember_plugin.hpp>

namespace ember::cpu {

namespace {
int read_num_threads() {
  if (const char* env = std::getenv("EMBER_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<int>(std::min(n, 1024L));
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}
}  // namespace

int num_threads() {
  static const int threads = read_num_threads();
  return threads;
}

void parallel_run(int64_t begin, int64_t end, int64_t grain, RangeFn fn) {
  const int64_t length = end - begin;
  const int64_t chunks =
      std::min<int64_t>(num_threads(), (length + grain - 1) / std::max<int64_t>(grain, 1));
  if (chunks <= 1 || omp_in_parallel()) {
    fn(begin, end);
    return;
  }
  std::exception_ptr error;
  std::once_flag error_once;
#pragma omp parallel num_threads(static_cast<int>(chunks))
  {
    // The team may be smaller than asked for; every chunk still runs.
    const int64_t team = omp_get_num_threads();
    for (int64_t c = omp_get_thread_num(); c < chunks; c += team) {
      const sdk::Range r = sdk::split_range(length, chunks, c);
      try {
        fn(begin + r.begin, begin + r.end);
      } catch (...) {
        std::call_once(error_once, [&] { error = std::current_exception(); });
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace ember::cpu
