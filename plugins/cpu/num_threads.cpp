// Note [CPU thread count]
// The default follows PyTorch's torch.get_num_threads(): one thread per
// physical core the process may run on (hyperthread siblings share a core's
// vector units, so a second thread per core rarely helps these kernels), and
// OMP_NUM_THREADS, which users already set for PyTorch and which oneDNN's
// OpenMP runtime reads too, overrides it. EMBER_NUM_THREADS overrides both,
// for a process where Ember should use another count than the other OpenMP
// libraries in it. ember::set_num_threads() (through the device table's
// set_num_threads slot) overrides all three at run time. Whatever the source,
// Ember's own pool and oneDNN's OpenMP team follow the one count (Note
// [oneDNN threads]).
#include "num_threads.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include <ember/ember_plugin.hpp>

namespace ember::cpu {
namespace {

// 0 until set_num_threads() is called.
std::atomic<int> g_requested_threads{0};

void warn(const std::string& message) {
  if (const ember_host_api* host = sdk::host(); host != nullptr && host->log != nullptr) {
    host->log(EMBER_LOG_WARN, "cpu", message.c_str());
  }
}

std::optional<int> env_num_threads(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::optional<int> threads = parse_num_threads(text);
  if (!threads) warn(std::string(name) + "='" + text + "' is not a positive integer; ignored");
  return threads;
}

// "physical_package_id" or "core_id" of one CPU, -1 when sysfs does not say.
int read_topology(int cpu, const char* field) {
  std::ifstream file("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/" + field);
  int value = -1;
  return file >> value ? value : -1;
}

int physical_cores() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  std::set<std::pair<int, int>> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    const int package = read_topology(cpu, "physical_package_id");
    const int core = read_topology(cpu, "core_id");
    // Without topology each CPU counts as a core of its own.
    cores.emplace(core < 0 ? -1 - cpu : package, core < 0 ? cpu : core);
  }
  return std::max(1, static_cast<int>(cores.size()));
}

}  // namespace

std::optional<int> parse_num_threads(const char* text) {
  if (text == nullptr) return std::nullopt;
  while (*text == ' ' || *text == '\t') ++text;
  if (*text < '0' || *text > '9') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  while (*end == ' ' || *end == '\t') ++end;
  if (errno == ERANGE || value < 1 || value > INT32_MAX || (*end != '\0' && *end != ',')) return std::nullopt;
  return static_cast<int>(value);
}

int default_num_threads() {
  static const int threads = [] {
    if (std::optional<int> ember = env_num_threads("EMBER_NUM_THREADS")) return *ember;
    if (std::optional<int> openmp = env_num_threads("OMP_NUM_THREADS")) return *openmp;
    return physical_cores();
  }();
  return threads;
}

int num_threads() {
  const int requested = g_requested_threads.load(std::memory_order_relaxed);
  return requested > 0 ? requested : default_num_threads();
}

void set_num_threads(int threads) {
  if (threads < 1) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              "cpu: set_num_threads expects a positive integer, got " + std::to_string(threads));
  }
  g_requested_threads.store(threads, std::memory_order_relaxed);
}

}  // namespace ember::cpu
