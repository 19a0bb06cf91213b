// The CPU device table: one device, host memory, synchronous copies.
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include <ember/ember_plugin.hpp>

#include "device.h"
#include "parallel.h"

namespace ember::cpu {
namespace {

// "model name" from /proc/cpuinfo, read once; it lives as long as the
// plugin, as ember_device_properties requires.
const std::string& cpu_model_name() {
  static const std::string name = [] {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
      if (line.rfind("model name", 0) != 0) continue;
      const size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const size_t start = line.find_first_not_of(" \t", colon + 1);
      if (start != std::string::npos) return line.substr(start);
    }
    return std::string("CPU");
  }();
  return name;
}

void device_count(int32_t* count) { *count = 1; }

void device_properties(int32_t device, ember_device_properties* props) {
  check_device(device);
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  ember_device_properties mine{};
  mine.name = cpu_model_name().c_str();
  mine.total_memory = pages > 0 && page_size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) : 0;
  mine.compute_units = std::thread::hardware_concurrency();
  sdk::write_struct(props, mine);
}

// All three kinds are host memory copies here. memmove: a device-to-device
// copy within one buffer may overlap.
void copy(const ember_copy_args* args) {
  if (args->kind != EMBER_COPY_HOST_TO_DEVICE) check_device(args->src_device);
  if (args->kind != EMBER_COPY_DEVICE_TO_HOST) check_device(args->dst_device);
  if (args->num_bytes == 0) return;
  std::memmove(static_cast<char*>(args->dst) + args->dst_offset, static_cast<const char*>(args->src) + args->src_offset,
               args->num_bytes);
}

void synchronize(int32_t device) { check_device(device); }

void set_threads(int32_t threads) {
  set_num_threads(threads);
  resize_thread_pool();
}

void get_threads(int32_t* threads) { *threads = num_threads(); }

ember_device_api make_device_api() {
  ember_device_api api = sdk::device_table(
      "cpu", kDLCPU,
      EMBER_DEVICE_ALLOCATOR_THREAD_SAFE | EMBER_DEVICE_COPY_THREAD_SAFE | EMBER_DEVICE_STREAM_THREAD_SAFE);
  api.device_count = sdk::fenced<device_count>;
  api.device_properties = sdk::fenced<device_properties>;
  api.allocate = sdk::fenced<allocate>;
  api.deallocate = sdk::fenced<deallocate>;
  api.copy = sdk::fenced<copy>;
  api.synchronize = sdk::fenced<synchronize>;
  api.set_num_threads = sdk::fenced<set_threads>;
  api.get_num_threads = sdk::fenced<get_threads>;
  // Streams, events and supports_op stay NULL: their documented defaults (one
  // in-order stream, synchronous events, "a kernel is registered") fit.
  return api;
}

}  // namespace

void check_device(int32_t device) {
  if (device != 0) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              "cpu: device " + std::to_string(device) + " does not exist (there is one, 0)");
  }
}

const ember_device_api* device_api() {
  static const ember_device_api api = make_device_api();
  return &api;
}

}  // namespace ember::cpu
