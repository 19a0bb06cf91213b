// libtorch's C++ dispatch cost on 1-element float32 tensors, the reference
// for BM_Dispatch_* in ember_bench (same shapes, same loop bodies).
//
//   BM_Torch_Add             `a + b` in the default mode (autograd and
//                            version counting on the dispatch path).
//   BM_Torch_AddInference    `a + b` under c10::InferenceMode.
//   BM_Torch_AddInplace      `x.add_(b)`.
//   BM_Torch_Empty           `at::empty({1})`.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <benchmark/benchmark.h>

#include <string>

namespace {

at::Tensor one_element(float value) { return at::full({1}, value, at::kFloat); }

// Out-of-place `a + b` on 1-element tensors: the whole dispatch path.
void run_add(benchmark::State& state) {
  const at::Tensor a = one_element(1.0f);
  const at::Tensor b = one_element(2.0f);
  { const at::Tensor warm = a + b; }
  for (auto _ : state) {
    at::Tensor c = a + b;
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Torch_Add(benchmark::State& state) { run_add(state); }

void BM_Torch_AddInference(benchmark::State& state) {
  c10::InferenceMode guard;
  run_add(state);
}

void BM_Torch_AddInplace(benchmark::State& state) {
  at::Tensor x = one_element(1.0f);
  const at::Tensor b = one_element(0.0f);
  x.add_(b);
  for (auto _ : state) {
    at::Tensor& r = x.add_(b);
    benchmark::DoNotOptimize(r.unsafeGetTensorImpl());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Torch_Empty(benchmark::State& state) {
  { const at::Tensor warm = at::empty({1}, at::kFloat); }
  for (auto _ : state) {
    at::Tensor t = at::empty({1}, at::kFloat);
    benchmark::DoNotOptimize(t.unsafeGetTensorImpl());
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_Torch_Add)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Torch_AddInference)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Torch_AddInplace)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Torch_Empty)->Unit(benchmark::kNanosecond)->UseRealTime();

int main(int argc, char** argv) {
  benchmark::AddCustomContext("torch_threads", std::to_string(at::get_num_threads()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
