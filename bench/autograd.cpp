// Autograd: forward + backward through recorded graphs. The libtorch
// references (bench/libtorch, BM_TorchAutograd_*) and bench/compare_torch.py
// (PyTorch from Python) run the same workloads with the same shapes.
//
//   BM_Autograd_MulSum16   `(a * b).sum()` and backward on 16-element float32
//                          leaves: graph recording and engine overhead.
//   BM_Autograd_MlpStep    one training step without the optimizer: MLP
//                          784-512-512-10 (ReLU), cross_entropy, batch 128.
//   BM_Autograd_Conv2d     conv2d(x, w, b) and backward from a fixed dense
//                          output gradient (as a layer inside a network gets
//                          it): batch 32, 64 -> 64 channels, 56x56, 3x3,
//                          padding 1; x, w and b all require grad.
//
// Every iteration sets the leaves' .grad back to undefined (PyTorch's
// zero_grad(set_to_none=True)), so each backward allocates fresh gradients
// on both sides.
#include <benchmark/benchmark.h>
#include <ember/autograd.h>
#include <ember/ember.h>

#include <vector>

namespace {

using ember::Tensor;

Tensor leaf(std::vector<int64_t> shape, double scale) {
  return (ember::randn(shape) * scale).detach().requires_grad_();
}

void clear_grads(std::vector<Tensor>& params) {
  for (Tensor& p : params) p.set_grad(Tensor());
}

void BM_Autograd_MulSum16(benchmark::State& state) {
  ember::manual_seed(0);
  std::vector<Tensor> ab = {leaf({16}, 1.0), leaf({16}, 1.0)};
  for (auto _ : state) {
    Tensor loss = ember::sum(ab[0] * ab[1]);
    ember::autograd::backward({loss});
    benchmark::DoNotOptimize(ab[0].grad().impl());
    clear_grads(ab);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Autograd_MlpStep(benchmark::State& state) {
  ember::manual_seed(0);
  const int64_t batch = 128;
  const Tensor x = ember::randn({batch, 784});
  std::vector<int64_t> labels(batch);
  for (int64_t i = 0; i < batch; ++i) labels[i] = (i * 7) % 10;
  const Tensor y = ember::tensor<int64_t>(labels);
  std::vector<Tensor> p = {leaf({512, 784}, 0.035), leaf({512}, 0.01), leaf({512, 512}, 0.044),
                           leaf({512}, 0.01),       leaf({10, 512}, 0.044), leaf({10}, 0.01)};
  auto step = [&] {
    const Tensor h1 = ember::relu(ember::linear(x, p[0], p[1]));
    const Tensor h2 = ember::relu(ember::linear(h1, p[2], p[3]));
    const Tensor loss = ember::cross_entropy(ember::linear(h2, p[4], p[5]), y);
    ember::autograd::backward({loss});
    benchmark::DoNotOptimize(p[0].grad().impl());
    clear_grads(p);
  };
  step();
  for (auto _ : state) step();
  state.SetItemsProcessed(state.iterations() * batch);
}

void BM_Autograd_Conv2d(benchmark::State& state) {
  ember::manual_seed(0);
  std::vector<Tensor> p = {leaf({32, 64, 56, 56}, 1.0), leaf({64, 64, 3, 3}, 0.04), leaf({64}, 0.01)};
  const Tensor grad_out = ember::randn({32, 64, 56, 56});
  auto step = [&] {
    const Tensor out = ember::conv2d(p[0], p[1], p[2], {1}, {1});
    ember::autograd::backward({out}, {grad_out});
    benchmark::DoNotOptimize(p[1].grad().impl());
    clear_grads(p);
  };
  step();
  for (auto _ : state) step();
  // 3 products of 2 * N*Ho*Wo * Co * Ci*kh*kw FLOP: forward, grad input, grad weight.
  const double flop = 3.0 * 2 * 32 * 56 * 56 * 64 * 64 * 9;
  state.counters["GFLOPS"] = benchmark::Counter(flop * static_cast<double>(state.iterations()) / 1e9,
                                                benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_Autograd_MulSum16)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Autograd_MlpStep)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Autograd_Conv2d)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
