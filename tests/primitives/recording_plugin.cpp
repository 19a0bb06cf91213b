// A device plugin ("rec") that records which primitives the core reaches on
// it. Its memory is host memory and its kernels are the CPU plugin's own,
// forwarded: a private copy of the CPU plugin is loaded and initialised with
// a host table that captures its registrations. Only the ops named in
// EMBER_RECORDING_PRIMITIVES (comma-separated) are forwarded, so every other
// op (the composites) runs as the core's decomposition, as on a device that
// implements primitives only.
//
// What was reached comes back as "op dtype" lines: in-process through the
// exported ember_recording_take(), or, when EMBER_RECORDING_LOG names a file,
// appended to that file as each new (op, dtype) is first reached (for a run
// in another process, such as the conformance kit's).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include <ember/ember_plugin.hpp>

namespace {

namespace sdk = ember::sdk;

// One kernel the CPU plugin registered.
struct ForwardedKernel {
  std::string op;
  ember_dtype dtype;
  ember_kernel_fn fn;
  void* data;
  uint32_t flags;
};

std::deque<ForwardedKernel> g_cpu_kernels;  // stable addresses: kernel_data points here
ember_host_api g_cpu_host;                  // the host table the CPU copy keeps

std::mutex g_record_mutex;
std::set<std::pair<std::string, ember_dtype>> g_reached;  // since the last take
std::set<std::pair<std::string, ember_dtype>> g_logged;   // written to EMBER_RECORDING_LOG
std::string g_taken;

ember_status* capture_kernel(ember_registrar*, const ember_kernel_registration* reg) {
  g_cpu_kernels.push_back({reg->op_name, reg->dtype, reg->kernel, reg->kernel_data, reg->flags});
  return nullptr;
}

void record(const ForwardedKernel& kernel) {
  std::lock_guard lock(g_record_mutex);
  const std::pair<std::string, ember_dtype> key{kernel.op, kernel.dtype};
  g_reached.insert(key);
  const char* log = std::getenv("EMBER_RECORDING_LOG");
  if (log != nullptr && g_logged.insert(key).second) {
    std::ofstream(log, std::ios::app) << kernel.op << ' ' << sdk::dtype_name(kernel.dtype) << '\n';
  }
}

ember_status* forward_kernel(const ember_kernel_call* call, void* data) {
  const auto& kernel = *static_cast<const ForwardedKernel*>(data);
  record(kernel);
  return kernel.fn(call, kernel.data);
}

// dlopen() of the CPU plugin's own file would return the instance the core
// already loaded; a copy under another name is a second, private instance.
void* load_private_cpu_plugin() {
  std::string path = (std::filesystem::temp_directory_path() / "ember_recording_cpu_XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) sdk::fail(EMBER_STATUS_INTERNAL, "rec: cannot create a temporary file in " + path);
  {
    std::ifstream in(EMBER_RECORDING_CPU_PLUGIN, std::ios::binary);
    std::ofstream out(path, std::ios::binary);
    out << in.rdbuf();
  }
  close(fd);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  unlink(path.c_str());
  if (handle == nullptr) sdk::fail(EMBER_STATUS_INTERNAL, std::string("rec: cannot load the CPU plugin: ") + dlerror());
  return handle;
}

// Captures the CPU plugin's kernels of the ops named in EMBER_RECORDING_PRIMITIVES.
void capture_cpu_kernels(const ember_host_api* host) {
  const char* names = std::getenv("EMBER_RECORDING_PRIMITIVES");
  if (names == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "rec: EMBER_RECORDING_PRIMITIVES is not set");
  std::set<std::string> primitives;
  std::stringstream list(names);
  for (std::string name; std::getline(list, name, ',');) primitives.insert(name);

  void* cpu = load_private_cpu_plugin();
  auto* init = reinterpret_cast<ember_plugin_init_fn>(dlsym(cpu, EMBER_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) sdk::fail(EMBER_STATUS_INTERNAL, "rec: the CPU plugin has no entry point");
  g_cpu_host = *host;
  g_cpu_host.register_kernel = capture_kernel;
  ember_plugin plugin{};
  plugin.struct_size = sizeof plugin;
  sdk::check(init(&g_cpu_host, &plugin));
  sdk::check(plugin.register_kernels(nullptr));
  std::erase_if(g_cpu_kernels, [&](const ForwardedKernel& k) { return primitives.count(k.op) == 0; });
}

// --- the device: host memory, synchronous ------------------------------------

ember_status* device_count(int32_t* count) {
  *count = 1;
  return nullptr;
}

ember_status* device_properties(int32_t, ember_device_properties* props) {
  ember_device_properties mine{};
  mine.name = "recording device";
  sdk::write_struct(props, mine);
  return nullptr;
}

ember_status* allocate(int32_t, size_t num_bytes, size_t alignment, void** ptr) {
  *ptr = num_bytes == 0 ? nullptr : std::aligned_alloc(alignment, (num_bytes + alignment - 1) / alignment * alignment);
  return num_bytes != 0 && *ptr == nullptr ? sdk::make_status(EMBER_STATUS_OUT_OF_MEMORY, "rec: out of memory")
                                           : nullptr;
}

ember_status* deallocate(int32_t, void* ptr) {
  std::free(ptr);
  return nullptr;
}

ember_status* copy(const ember_copy_args* args) {
  std::memmove(static_cast<char*>(args->dst) + args->dst_offset, static_cast<const char*>(args->src) + args->src_offset,
               args->num_bytes);
  return nullptr;
}

ember_status* synchronize(int32_t) { return nullptr; }

ember_device_api make_device_api() {
  ember_device_api api = sdk::device_table("rec", kDLExtDev);
  api.device_count = device_count;
  api.device_properties = device_properties;
  api.allocate = allocate;
  api.deallocate = deallocate;
  api.copy = copy;
  api.synchronize = synchronize;
  return api;
}

ember_status* register_kernels(ember_registrar* registrar) {
  return sdk::fence([&] {
    const sdk::Registrar r(registrar);
    for (ForwardedKernel& kernel : g_cpu_kernels)
      r.add(kernel.op.c_str(), kernel.dtype, forward_kernel, &kernel, kernel.flags);
  });
}

}  // namespace

// "op dtype" lines for every (op, dtype) reached since the last call; valid
// until the next call.
extern "C" EMBER_PLUGIN_EXPORT const char* ember_recording_take() {
  std::lock_guard lock(g_record_mutex);
  std::string lines;
  for (const auto& [op, dtype] : g_reached) lines += op + ' ' + sdk::dtype_name(dtype) + '\n';
  g_reached.clear();
  g_taken = std::move(lines);
  return g_taken.c_str();
}

ember_plugin describe_plugin() {
  capture_cpu_kernels(sdk::host());
  static const ember_device_api api = make_device_api();
  ember_plugin plugin{};
  plugin.name = "rec";
  plugin.version = "1.0";
  plugin.device = &api;
  plugin.register_kernels = register_kernels;
  return plugin;
}

EMBER_PLUGIN_ENTRY(describe_plugin)
