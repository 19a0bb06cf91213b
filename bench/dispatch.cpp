// Dispatch overhead: ops on 1-element float32 tensors, where the kernel's own
// work is one instruction and everything measured is the path around it.
//
//   BM_Dispatch_Add         `a + b`: meta function (broadcast, promotion),
//                           output from the caching allocator, plugin call,
//                           and freeing the result back to the cache.
//   BM_Dispatch_AddInplace  `add_(x, b)`: the same without the allocation.
//   BM_Dispatch_Empty       `empty({1})`: allocation and TensorImpl only.
//   BM_Dispatch_Transpose   `x.transpose(0, 1)` of a [1, 1] tensor: a view op
//                           (validation, layout, a TensorImpl sharing storage).
//   BM_Dispatch_Expand      `x.expand({4, 1})`: the broadcast view binary ops insert.
//   BM_Dispatch_View        `x.view({1, 1})` of a [1] tensor.
//   BM_Dispatch_AddProfiled `a + b` while ember::profiler records every op:
//                           the difference to BM_Dispatch_Add is the
//                           recorder's cost per op (docs/profiler.md).
#include <benchmark/benchmark.h>
#include <ember/ember.h>
#include <ember/profiler.h>

namespace {

ember::Tensor one_element(float value) {
  const int64_t shape[] = {1};
  return ember::full(shape, value, ember::DType::Float32);
}

void BM_Dispatch_Add(benchmark::State& state) {
  const ember::Tensor a = one_element(1.0f);
  const ember::Tensor b = one_element(2.0f);
  { const ember::Tensor warm = a + b; }
  for (auto _ : state) {
    ember::Tensor c = a + b;
    benchmark::DoNotOptimize(c.impl());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Dispatch_AddProfiled(benchmark::State& state) {
  const ember::Tensor a = one_element(1.0f);
  const ember::Tensor b = one_element(2.0f);
  { const ember::Tensor warm = a + b; }
  ember::profiler::start({});
  for (auto _ : state) {
    ember::Tensor c = a + b;
    benchmark::DoNotOptimize(c.impl());
  }
  // After the loop, so outside the timed part.
  const size_t events = ember::profiler::stop().size();
  state.counters["events_per_op"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations());
}

void BM_Dispatch_AddInplace(benchmark::State& state) {
  ember::Tensor x = one_element(1.0f);
  const ember::Tensor b = one_element(0.0f);
  ember::add_(x, b);
  for (auto _ : state) {
    ember::Tensor& r = ember::add_(x, b);
    benchmark::DoNotOptimize(r.impl());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Dispatch_Empty(benchmark::State& state) {
  const int64_t shape[] = {1};
  { const ember::Tensor warm = ember::empty(shape, ember::DType::Float32); }
  for (auto _ : state) {
    ember::Tensor t = ember::empty(shape, ember::DType::Float32);
    benchmark::DoNotOptimize(t.impl());
  }
  state.SetItemsProcessed(state.iterations());
}

template <typename MakeView>
void run_view(benchmark::State& state, const ember::Tensor& x, MakeView make_view) {
  { const ember::Tensor warm = make_view(x); }
  for (auto _ : state) {
    ember::Tensor v = make_view(x);
    benchmark::DoNotOptimize(v.impl());
  }
  state.SetItemsProcessed(state.iterations());
}

ember::Tensor one_by_one() {
  const int64_t shape[] = {1, 1};
  return ember::full(shape, 1.0f, ember::DType::Float32);
}

void BM_Dispatch_Transpose(benchmark::State& state) {
  run_view(state, one_by_one(), [](const ember::Tensor& x) { return x.transpose(0, 1); });
}

void BM_Dispatch_Expand(benchmark::State& state) {
  run_view(state, one_by_one(), [](const ember::Tensor& x) {
    const int64_t shape[] = {4, 1};
    return x.expand(shape);
  });
}

void BM_Dispatch_View(benchmark::State& state) {
  run_view(state, one_element(1.0f), [](const ember::Tensor& x) {
    const int64_t shape[] = {1, 1};
    return x.view(shape);
  });
}

}  // namespace

BENCHMARK(BM_Dispatch_Transpose)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Dispatch_Expand)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Dispatch_View)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Dispatch_Add)->Unit(benchmark::kNanosecond)->UseRealTime();
// A fixed count: every iteration keeps an event in memory until stop().
BENCHMARK(BM_Dispatch_AddProfiled)->Unit(benchmark::kNanosecond)->UseRealTime()->Iterations(200000);
BENCHMARK(BM_Dispatch_AddInplace)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Dispatch_Empty)->Unit(benchmark::kNanosecond)->UseRealTime();
