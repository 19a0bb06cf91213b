// fp32 matmul: Ember's mm (CPU plugin -> oneDNN matmul primitive) against
// dnnl_sgemm called directly, same oneDNN library, same process.
// GFLOP/s counts 2*M*N*K per product.
#include <benchmark/benchmark.h>
#include <ember/ember.h>
#include <oneapi/dnnl/dnnl.h>

#include <stdexcept>
#include <vector>

namespace {

double flops(int64_t n) { return 2.0 * static_cast<double>(n) * n * n; }

void BM_Matmul_Ember(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int64_t shape[] = {n, n};
  ember::manual_seed(0);
  const ember::Tensor a = ember::rand(shape, ember::DType::Float32);
  const ember::Tensor b = ember::rand(shape, ember::DType::Float32);
  { const ember::Tensor warm = ember::mm(a, b); }  // builds the cached primitive
  for (auto _ : state) {
    ember::Tensor c = ember::mm(a, b);
    benchmark::DoNotOptimize(c.impl());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(flops(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Matmul_DnnlSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a(static_cast<size_t>(n * n)), b(a.size()), c(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 97) / 97.0f;
    b[i] = static_cast<float>(i % 89) / 89.0f;
  }
  auto sgemm = [&] {
    if (dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n) !=
        dnnl_success) {
      throw std::runtime_error("dnnl_sgemm failed");
    }
  };
  sgemm();
  for (auto _ : state) {
    sgemm();
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(flops(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

BENCHMARK(BM_Matmul_Ember)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Matmul_DnnlSgemm)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
