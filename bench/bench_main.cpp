// ember_bench's main: Google Benchmark's, plus what Ember loaded, recorded in
// the context block of every report.
#include <benchmark/benchmark.h>
#include <ember/ember.h>

#include <string>

#include "bench_common.h"

int main(int argc, char** argv) {
  std::string plugins;
  for (const ember::PluginInfo& p : ember::plugins()) {
    if (!plugins.empty()) plugins += ", ";
    plugins += p.name + " " + p.version + (p.loaded ? "" : " (quarantined: " + p.error + ")");
  }
  benchmark::AddCustomContext("ember_plugins", plugins.empty() ? "none" : plugins);
  benchmark::AddCustomContext("reference_threads",
                              std::to_string(ember_bench::reference_threads()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
