// A plugin whose kernels fail in the ways a real one can, for the tests of
// faults at the ABI (tests/cpp/test_kernel_faults.cpp). Device type
// "faulty", one device of host memory from a guard-page arena:
//   neg  throws a C++ exception straight out of the kernel, with no fence
//        (what sdk::fenced exists to prevent, done on purpose here)
//   abs  writes one element past the end of its output
//   exp  returns an error status
//   sin  never returns (for the kernel watchdog, Note [Kernel watchdog])
// Note [Guard-page arena]: every allocation gets its own pages, placed so
// that the block ends exactly where a PROT_NONE page begins. The core's
// caching allocator hands each tensor a whole device allocation of its size
// class (Note [Size classes]), so a tensor of exactly 512 bytes ends at the
// guard page and a write one element past it faults. The kernel runs under
// a SIGSEGV handler that jumps back out of a fault inside a guard page
// (sigsetjmp, per thread) and turns it into a status, so the process lives
// and the core can report the plugin and op like any other error.
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <string>

#include <ember/ember_plugin.h>

namespace {

const ember_host_api* g_host = nullptr;

struct Mapping {
  size_t offset;     // of the block from the start of the mapping
  size_t map_bytes;  // the whole mapping, guard page included
  char* guard;       // the PROT_NONE page just after the block
};

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// The mapping's bookkeeping lives in its first page, before the block, so
// deallocate needs nothing but the pointer.
ember_status* faulty_allocate(int32_t device, size_t num_bytes, size_t alignment, void** ptr) {
  if (device != 0) return g_host->status_create(EMBER_STATUS_OUT_OF_RANGE, "no such faulty device");
  const size_t page = page_size();
  if (alignment == 0 || alignment > page) alignment = page;
  const size_t block = (num_bytes + alignment - 1) / alignment * alignment;
  const size_t data_pages = (block + sizeof(Mapping) + alignment + page - 1) / page;
  const size_t map_bytes = (data_pages + 1) * page;
  void* raw = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return g_host->status_create(EMBER_STATUS_OUT_OF_MEMORY, "faulty: mmap failed");
  char* guard = static_cast<char*>(raw) + data_pages * page;
  mprotect(guard, page, PROT_NONE);
  char* data = guard - block;
  Mapping mapping{static_cast<size_t>(data - static_cast<char*>(raw)), map_bytes, guard};
  std::memcpy(static_cast<char*>(raw), &mapping, sizeof(mapping));
  std::memcpy(data - sizeof(size_t), &mapping.offset, sizeof(size_t));
  *ptr = data;
  return nullptr;
}

ember_status* faulty_deallocate(int32_t device, void* ptr) {
  (void)device;
  size_t offset = 0;
  std::memcpy(&offset, static_cast<char*>(ptr) - sizeof(size_t), sizeof(size_t));
  char* raw = static_cast<char*>(ptr) - offset;
  Mapping mapping;
  std::memcpy(&mapping, raw, sizeof(mapping));
  munmap(raw, mapping.map_bytes);
  return nullptr;
}

ember_status* faulty_device_count(int32_t* count) {
  *count = 1;
  return nullptr;
}

ember_status* faulty_device_properties(int32_t device, ember_device_properties* props) {
  if (device != 0) return g_host->status_create(EMBER_STATUS_OUT_OF_RANGE, "no such faulty device");
  props->name = "faulty device";
  props->total_memory = size_t{1} << 30;
  props->compute_units = 1;
  return nullptr;
}

ember_status* faulty_copy(const ember_copy_args* args) {
  std::memcpy(static_cast<char*>(args->dst) + args->dst_offset, static_cast<const char*>(args->src) + args->src_offset,
              args->num_bytes);
  return nullptr;
}

ember_status* faulty_synchronize(int32_t device) {
  return device == 0 ? nullptr : g_host->status_create(EMBER_STATUS_OUT_OF_RANGE, "no such faulty device");
}

ember_device_api g_device = [] {
  ember_device_api api{};
  api.struct_size = sizeof(ember_device_api);
  api.device_type = "faulty";
  api.dl_device_type = kDLExtDev;
  api.device_count = faulty_device_count;
  api.device_properties = faulty_device_properties;
  api.allocate = faulty_allocate;
  api.deallocate = faulty_deallocate;
  api.copy = faulty_copy;
  api.synchronize = faulty_synchronize;
  return api;
}();

// The jump back out of a fault in a guard page (Note [Guard-page arena]).
// volatile: the stores around the loop must stay where they are, though no
// call separates them (the compiler would otherwise drop the first as dead).
thread_local sigjmp_buf* volatile t_fault_jump = nullptr;
thread_local void* volatile t_fault_address = nullptr;
struct sigaction g_previous_segv;

void on_segv(int signal, siginfo_t* info, void* context) {
  if (t_fault_jump != nullptr) {
    t_fault_address = info->si_addr;
    siglongjmp(*t_fault_jump, 1);
  }
  // Not ours: the previous handler (or the default action) sees it.
  if (g_previous_segv.sa_flags & SA_SIGINFO) {
    g_previous_segv.sa_sigaction(signal, info, context);
  } else if (g_previous_segv.sa_handler != SIG_IGN && g_previous_segv.sa_handler != SIG_DFL) {
    g_previous_segv.sa_handler(signal);
  } else {
    sigaction(SIGSEGV, &g_previous_segv, nullptr);  // returning re-runs the access under it
  }
}

int64_t numel(const DLTensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

float* data_of(const DLTensor& t) { return reinterpret_cast<float*>(static_cast<char*>(t.data) + t.byte_offset); }

ember_status* throwing_neg(const ember_kernel_call*, void*) { throw std::runtime_error("neg kernel blew up"); }

ember_status* overrunning_abs(const ember_kernel_call* call, void*) {
  const DLTensor& in = call->inputs[0];
  const DLTensor& out = call->outputs[0];
  volatile float* values = data_of(out);
  const float* source = data_of(in);
  const int64_t n = numel(out);
  sigjmp_buf jump;
  if (sigsetjmp(jump, 1) != 0) {
    t_fault_jump = nullptr;
    char address[32];
    std::snprintf(address, sizeof(address), "%p", t_fault_address);
    return g_host->status_create(EMBER_STATUS_INTERNAL, (std::string("wrote out of bounds of its output at ") +
                                                         address + " (a guard page of the faulty arena)")
                                                            .c_str());
  }
  t_fault_jump = &jump;
  for (int64_t i = 0; i < n; ++i) values[i] = source[i] < 0 ? -source[i] : source[i];
  values[n] = 0.0f;  // the bug: one element past the end
  t_fault_jump = nullptr;
  return nullptr;
}

ember_status* failing_exp(const ember_kernel_call*, void*) {
  return g_host->status_create(EMBER_STATUS_INTERNAL, "exp kernel returned an error");
}

ember_status* deadlocked_sin(const ember_kernel_call*, void*) {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

ember_status* register_one(ember_registrar* registrar, const char* op, ember_kernel_fn fn) {
  ember_kernel_registration kernel{};
  kernel.struct_size = sizeof(kernel);
  kernel.op_name = op;
  kernel.dtype = EMBER_DTYPE_FLOAT32;
  kernel.kernel = fn;
  kernel.flags = EMBER_KERNEL_THREAD_SAFE;
  return g_host->register_kernel(registrar, &kernel);
}

ember_status* faulty_register_kernels(ember_registrar* registrar) {
  if (ember_status* status = register_one(registrar, "neg", throwing_neg)) return status;
  if (ember_status* status = register_one(registrar, "abs", overrunning_abs)) return status;
  if (ember_status* status = register_one(registrar, "sin", deadlocked_sin)) return status;
  return register_one(registrar, "exp", failing_exp);
}

}  // namespace

extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  g_host = host;
  struct sigaction action {};
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous_segv);
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = EMBER_ABI_VERSION_MINOR;
  plugin->name = "faulty";
  plugin->version = "0.1";
  plugin->device = &g_device;
  plugin->register_kernels = faulty_register_kernels;
  return nullptr;
}
