// STREAM-style references in plain C++: what two cores of this machine can
// stream with the compiler's best code. Built with -O3 -march=native.
#include <omp.h>

#include <cstdlib>
#include <new>

#include "bench_common.h"

namespace ember_bench {

float* ref_alloc(int64_t n) {
  constexpr size_t kAlign = size_t{2} << 20;
  const size_t bytes = (static_cast<size_t>(n) * sizeof(float) + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<float*>(p);
}

void ref_free(float* p) { std::free(p); }

// Same static schedule as the kernels below, so each thread first-touches
// the pages it later streams.
void ref_fill(float* a, float value, int64_t n, int threads) {
#pragma omp parallel for simd schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) a[i] = value;
}

void ref_triad(float* __restrict a, const float* __restrict b, const float* __restrict c,
               float s, int64_t n, int threads) {
#pragma omp parallel for simd schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void ref_add(float* __restrict c, const float* __restrict a, const float* __restrict b,
             int64_t n, int threads) {
#pragma omp parallel for simd schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

float ref_sum(const float* __restrict a, int64_t n, int threads) {
  float total = 0.0f;
#pragma omp parallel for simd schedule(static) num_threads(threads) reduction(+ : total)
  for (int64_t i = 0; i < n; ++i) total += a[i];
  return total;
}

}  // namespace ember_bench
