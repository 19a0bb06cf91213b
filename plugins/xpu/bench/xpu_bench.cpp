// The XPU plugin next to the CPU plugin, in one process: elementwise `add`
// bandwidth (16M float32, fresh output; 3 arrays x 4 B per element, as
// STREAM counts) and float32 GEMM (mm, 2 n^3 FLOP). Every device iteration
// ends with a synchronize, so the time is the work's, not the enqueue's.
// Figures in docs/benchmarks.md.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

namespace {

constexpr int64_t kElements = int64_t{1} << 24;

// The plugin is built beside the build tree's plugins/ folder (Note [XPU
// plugin is opt-in in the build tree]), so it is loaded explicitly.
bool device_present(benchmark::State& state, const char* type_name) {
  static const bool loaded = ember::load_plugin(EMBER_XPU_PLUGIN_PATH).loaded;
  if (loaded && ember::device_count(type_name) > 0) return true;
  state.SkipWithError("no such device");
  return false;
}

void BM_Add(benchmark::State& state, const char* device_name) {
  if (!device_present(state, device_name)) return;
  const ember::Device device(device_name);
  const ember::Tensor a = ember::ones({kElements}, ember::TensorOptions(ember::DType::Float32, device));
  const ember::Tensor b = ember::ones({kElements}, ember::TensorOptions(ember::DType::Float32, device));
  ember::add(a, b);
  ember::synchronize(device);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ember::add(a, b));
    ember::synchronize(device);
  }
  state.SetBytesProcessed(state.iterations() * kElements * 3 * static_cast<int64_t>(sizeof(float)));
}

void BM_Matmul(benchmark::State& state, const char* device_name) {
  if (!device_present(state, device_name)) return;
  const ember::Device device(device_name);
  const int64_t n = state.range(0);
  const ember::Tensor a = ember::randn({n, n}).to(device);
  const ember::Tensor b = ember::randn({n, n}).to(device);
  ember::mm(a, b);
  ember::synchronize(device);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ember::mm(a, b));
    ember::synchronize(device);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(static_cast<double>(2 * n * n * n) * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_Add, cpu, "cpu")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Add, xpu, "xpu")->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Matmul, cpu, "cpu")->Arg(512)->Arg(1024)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Matmul, xpu, "xpu")->Arg(512)->Arg(1024)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
