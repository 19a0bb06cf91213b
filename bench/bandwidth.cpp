// Memory bandwidth: Ember's out-of-place add/mul and full sum on 64M float32
// against STREAM-style loops over the same number of elements.
//
// Bytes are counted as STREAM counts them (no write-allocate traffic):
//   add, mul, triad, plain add: 3 arrays x 4 B per element
//   sum:                        1 array  x 4 B per element
// Each Ember iteration makes a fresh 256 MiB output; the caching allocator
// serves it from the block the previous iteration freed.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include "bench_common.h"

namespace {

using ember_bench::kStreamElements;
using ember_bench::reference_threads;
using ember_bench::ref_add;
using ember_bench::ref_alloc;
using ember_bench::ref_fill;
using ember_bench::ref_sum;
using ember_bench::ref_triad;

constexpr int64_t kN = kStreamElements;
constexpr int64_t kBytes = kN * static_cast<int64_t>(sizeof(float));

// Created once and kept for the whole run (never destroyed: the process
// exits with them alive, after the last benchmark).
struct EmberOperands {
  ember::Tensor a, b;
};
EmberOperands& ember_operands() {
  static EmberOperands* ops = [] {
    const int64_t shape[] = {kN};
    auto* o = new EmberOperands{ember::full(shape, 1.0f, ember::DType::Float32),
                                ember::full(shape, 2.0f, ember::DType::Float32)};
    // Touch the output block once, so the cache holds it before timing.
    const ember::Tensor warm = ember::add(o->a, o->b);
    return o;
  }();
  return *ops;
}

struct RefOperands {
  float *a, *b, *c;
};
RefOperands& ref_operands() {
  static RefOperands* ops = [] {
    const int threads = reference_threads();
    auto* o = new RefOperands{ref_alloc(kN), ref_alloc(kN), ref_alloc(kN)};
    ref_fill(o->a, 0.0f, kN, threads);
    ref_fill(o->b, 1.0f, kN, threads);
    ref_fill(o->c, 2.0f, kN, threads);
    return o;
  }();
  return *ops;
}

void BM_Stream_EmberAdd(benchmark::State& state) {
  const EmberOperands& o = ember_operands();
  for (auto _ : state) {
    ember::Tensor c = ember::add(o.a, o.b);
    benchmark::DoNotOptimize(c.impl());
  }
  state.SetBytesProcessed(state.iterations() * 3 * kBytes);
}

void BM_Stream_EmberMul(benchmark::State& state) {
  const EmberOperands& o = ember_operands();
  for (auto _ : state) {
    ember::Tensor c = ember::mul(o.a, o.b);
    benchmark::DoNotOptimize(c.impl());
  }
  state.SetBytesProcessed(state.iterations() * 3 * kBytes);
}

void BM_Stream_EmberSum(benchmark::State& state) {
  const EmberOperands& o = ember_operands();
  for (auto _ : state) {
    ember::Tensor s = ember::sum(o.a);
    benchmark::DoNotOptimize(s.impl());
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}

void BM_Stream_RefTriad(benchmark::State& state) {
  const RefOperands& o = ref_operands();
  const int threads = reference_threads();
  for (auto _ : state) {
    ref_triad(o.a, o.b, o.c, 3.0f, kN, threads);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 3 * kBytes);
}

void BM_Stream_RefAdd(benchmark::State& state) {
  const RefOperands& o = ref_operands();
  const int threads = reference_threads();
  for (auto _ : state) {
    ref_add(o.a, o.b, o.c, kN, threads);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 3 * kBytes);
}

void BM_Stream_RefSum(benchmark::State& state) {
  const RefOperands& o = ref_operands();
  const int threads = reference_threads();
  for (auto _ : state) {
    float s = ref_sum(o.b, kN, threads);
    benchmark::DoNotOptimize(s);
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}

}  // namespace

BENCHMARK(BM_Stream_EmberAdd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Stream_EmberMul)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Stream_EmberSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Stream_RefTriad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Stream_RefAdd)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Stream_RefSum)->Unit(benchmark::kMillisecond)->UseRealTime();
