// Lists the plugins and devices Ember found, then runs a few ops on the
// default CPU plugin.
#include <ember/ember.h>

#include <iostream>

int main() {
  try {
    std::cout << "Plugins:\n";
    for (const ember::PluginInfo& p : ember::plugins()) {
      std::cout << "  " << p.name << " " << p.version << "  ABI " << p.abi_major << "." << p.abi_minor
                << "  " << (p.loaded ? "loaded, " + std::to_string(p.num_kernels) + " kernels" : "quarantined: " + p.error)
                << "\n    " << p.path << "\n";
    }
    std::cout << "Devices:\n";
    for (const ember::DeviceInfo& d : ember::devices()) {
      std::cout << "  " << d.device.str() << "  " << d.name;
      if (d.compute_units) std::cout << "  (" << d.compute_units << " compute units)";
      std::cout << "\n";
    }

    ember::manual_seed(0);
    const ember::Tensor a = ember::arange(6, ember::DType::Float32).view({2, 3});
    const ember::Tensor b = ember::tensor<float>({10, 20, 30});
    std::cout << "\na = " << a << "\nb = " << b << "\n";
    std::cout << "a + b (broadcast) = " << a + b << "\n";
    std::cout << "a @ a.T = " << ember::mm(a, a.t()) << "\n";
    std::cout << "sum(a, dim=1) = " << ember::sum(a, {1}) << "\n";
    std::cout << "argmax(a, dim=0) = " << ember::argmax(a, 0) << "\n";
    std::cout << "rand(2, 2) = " << ember::rand({2, 2}) << "\n";
    std::cout << "meta: " << ember::mm(ember::empty({128, 64}, "meta"), ember::empty({64, 32}, "meta")) << "\n";
    const ember::MemoryStats stats = ember::memory_stats(ember::Device("cpu"));
    std::cout << "\nCPU allocator: " << stats.allocated << " B allocated, " << stats.reserved << " B reserved, "
              << stats.num_cache_hits << "/" << stats.num_allocs << " requests served from the cache\n";
  } catch (const ember::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
