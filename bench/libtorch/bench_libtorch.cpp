// libtorch's C++ dispatch cost on 1-element float32 tensors, the reference
// for BM_Dispatch_* in ember_bench (same shapes, same loop bodies).
//
//   BM_Torch_Add             `a + b` in the default mode (autograd and
//                            version counting on the dispatch path).
//   BM_Torch_AddInference    `a + b` under c10::InferenceMode.
//   BM_Torch_AddInplace      `x.add_(b)`.
//   BM_Torch_Empty           `at::empty({1})`.
//
// and the references for BM_Autograd_* (bench/autograd.cpp), same shapes and
// loop bodies, grads reset to undefined every iteration:
//
//   BM_TorchAutograd_MulSum16  `(a * b).sum().backward()`, 16-element f32.
//   BM_TorchAutograd_MlpStep   MLP 784-512-512-10 (ReLU), cross_entropy,
//                              batch 128: forward + backward.
//   BM_TorchAutograd_Conv2d    conv2d(x, w, b), backward from a fixed dense
//                              output gradient, batch 32,
//                              64 -> 64 channels, 56x56, 3x3, padding 1.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

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

at::Tensor leaf(at::IntArrayRef shape, double scale) { return (at::randn(shape) * scale).detach().requires_grad_(); }

void clear_grads(std::vector<at::Tensor>& params) {
  for (at::Tensor& p : params) p.mutable_grad().reset();
}

void BM_TorchAutograd_MulSum16(benchmark::State& state) {
  at::manual_seed(0);
  std::vector<at::Tensor> ab = {leaf({16}, 1.0), leaf({16}, 1.0)};
  for (auto _ : state) {
    at::Tensor loss = (ab[0] * ab[1]).sum();
    loss.backward();
    benchmark::DoNotOptimize(ab[0].grad().unsafeGetTensorImpl());
    clear_grads(ab);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_TorchAutograd_MlpStep(benchmark::State& state) {
  at::manual_seed(0);
  const int64_t batch = 128;
  const at::Tensor x = at::randn({batch, 784});
  std::vector<int64_t> labels(batch);
  for (int64_t i = 0; i < batch; ++i) labels[i] = (i * 7) % 10;
  const at::Tensor y = at::tensor(labels, at::kLong);
  std::vector<at::Tensor> p = {leaf({512, 784}, 0.035), leaf({512}, 0.01), leaf({512, 512}, 0.044),
                               leaf({512}, 0.01),       leaf({10, 512}, 0.044), leaf({10}, 0.01)};
  auto step = [&] {
    const at::Tensor h1 = at::relu(at::linear(x, p[0], p[1]));
    const at::Tensor h2 = at::relu(at::linear(h1, p[2], p[3]));
    at::Tensor loss = at::cross_entropy_loss(at::linear(h2, p[4], p[5]), y);
    loss.backward();
    benchmark::DoNotOptimize(p[0].grad().unsafeGetTensorImpl());
    clear_grads(p);
  };
  step();
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * batch);
}

void BM_TorchAutograd_Conv2d(benchmark::State& state) {
  at::manual_seed(0);
  std::vector<at::Tensor> p = {leaf({32, 64, 56, 56}, 1.0), leaf({64, 64, 3, 3}, 0.04), leaf({64}, 0.01)};
  const at::Tensor grad_out = at::randn({32, 64, 56, 56});
  auto step = [&] {
    at::Tensor out = at::conv2d(p[0], p[1], p[2], {1}, {1});
    out.backward(grad_out);
    benchmark::DoNotOptimize(p[1].grad().unsafeGetTensorImpl());
    clear_grads(p);
  };
  step();
  for (auto _ : state) step();
  const double flop = 3.0 * 2 * 32 * 56 * 56 * 64 * 64 * 9;
  state.counters["GFLOPS"] = benchmark::Counter(flop * static_cast<double>(state.iterations()) / 1e9,
                                                benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_Torch_Add)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Torch_AddInference)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Torch_AddInplace)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_Torch_Empty)->Unit(benchmark::kNanosecond)->UseRealTime();
BENCHMARK(BM_TorchAutograd_MulSum16)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_TorchAutograd_MlpStep)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TorchAutograd_Conv2d)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

int main(int argc, char** argv) {
  benchmark::AddCustomContext("torch_threads", std::to_string(at::get_num_threads()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
