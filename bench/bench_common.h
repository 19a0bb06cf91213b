// Shared helpers for ember_bench.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <thread>

namespace ember_bench {

// Elements per operand of the bandwidth benchmarks: 64M float32 = 256 MiB.
inline constexpr int64_t kStreamElements = int64_t{1} << 26;

// Threads for the plain C++ references: the rule the CPU plugin uses
// (EMBER_NUM_THREADS if set to a positive integer, else every hardware
// thread), so both sides run on the same number of cores.
inline int reference_threads() {
  if (const char* env = std::getenv("EMBER_NUM_THREADS")) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0) return static_cast<int>(n);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// stream_ref.cpp (-O3 -march=native, OpenMP static schedule).
float* ref_alloc(int64_t n);  // 2 MiB aligned, first-touched by the team
void ref_free(float* p);
void ref_fill(float* a, float value, int64_t n, int threads);
void ref_triad(float* a, const float* b, const float* c, float s, int64_t n, int threads);
void ref_add(float* c, const float* a, const float* b, int64_t n, int threads);
float ref_sum(const float* a, int64_t n, int threads);

}  // namespace ember_bench
