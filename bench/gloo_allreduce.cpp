// Gloo's own all-reduce, called directly from C++, as the reference the
// distributed benchmark (distributed_bench.py) sets Ember's beside:
//
//   ember_bench_gloo_allreduce RANK WORLD STORE_DIR ITERATIONS BYTES...
//
// prints one line per size: "<bytes> <median seconds per all-reduce>".
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s RANK WORLD STORE_DIR ITERATIONS BYTES...\n", argv[0]);
    return 2;
  }
  const int rank = std::atoi(argv[1]);
  const int world = std::atoi(argv[2]);
  const int iterations = std::atoi(argv[4]);
  gloo::rendezvous::FileStore store(argv[3]);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto device = gloo::transport::tcp::CreateDevice(attr);
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, world);
  context->connectFullMesh(store, device);
  uint32_t tag = 0;
  for (int a = 5; a < argc; ++a) {
    const size_t count = std::stoull(argv[a]) / sizeof(float);
    std::vector<float> data(count, 1.0f);
    std::vector<double> seconds;
    for (int i = 0; i < iterations + 2; ++i) {
      gloo::AllreduceOptions options(context);
      options.setOutput(data.data(), count);
      options.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      options.setTag(tag++);
      const auto start = std::chrono::steady_clock::now();
      gloo::allreduce(options);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      if (i >= 2) seconds.push_back(took.count());
    }
    std::sort(seconds.begin(), seconds.end());
    if (rank == 0) std::printf("%s %.9f\n", argv[a], seconds[seconds.size() / 2]);
  }
  return 0;
}
