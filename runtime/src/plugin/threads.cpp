// The public thread-count API of ember/threads.h, over the device tables'
// optional set_num_threads and get_num_threads slots (ABI 1.1).
#include "ember/threads.h"

#include <atomic>
#include <cstddef>
#include <string>

#include "ember/error.h"
#include "plugin/device_call.h"
#include "plugin/device_registry.h"
#include "plugin/loader.h"
#include "plugin/openmp_spin.h"
#include "plugin/status.h"
#include "plugin/threads.h"

namespace ember {
namespace {

std::atomic<int> g_requested_num_threads{0};

}  // namespace

int plugin::requested_num_threads() { return g_requested_num_threads.load(std::memory_order_relaxed); }

void set_num_threads(int num_threads) {
  if (num_threads < 1) {
    throw_error(ErrorKind::Runtime,
                "set_num_threads expects a positive integer, but got " + std::to_string(num_threads));
  }
  plugin::discover_plugins();
  for (plugin::DeviceBackend* backend : plugin::DeviceRegistry::get().all()) {
    if (!backend->has(offsetof(ember_device_api, set_num_threads)) || backend->api->set_num_threads == nullptr) {
      continue;
    }
    plugin::throw_if_error(
        plugin::call_device(*backend, plugin::kAlwaysSerialised,
                            [&] { return backend->api->set_num_threads(num_threads); }),
        "set_num_threads(" + std::to_string(num_threads) + ") on plugin '" + backend->plugin_name + "'");
  }
  g_requested_num_threads.store(num_threads, std::memory_order_relaxed);
}

int get_num_threads() {
  plugin::discover_plugins();
  auto& registry = plugin::DeviceRegistry::get();
  const DeviceTypeId cpu = registry.find_type("cpu");
  plugin::DeviceBackend* backend = cpu < 0 ? nullptr : registry.backend(cpu);
  if (backend == nullptr || !backend->has(offsetof(ember_device_api, get_num_threads)) ||
      backend->api->get_num_threads == nullptr) {
    return 1;
  }
  int32_t threads = 1;
  plugin::throw_if_error(
      plugin::call_device(*backend, plugin::kAlwaysSerialised, [&] { return backend->api->get_num_threads(&threads); }),
      "get_num_threads on plugin '" + backend->plugin_name + "'");
  return threads;
}

std::string openmp_wait_policy() {
  plugin::discover_plugins();
  return plugin::openmp_wait_policy();
}

}  // namespace ember
