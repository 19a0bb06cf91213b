#include "loaded_kernel.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ember/kernel_ir/launch_checks.h>
#include <ember/sdk/status.hpp>

#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "../parallel.h"
#include "blob.h"
#include "cpp_dialect.h"

namespace ember::cpu_codegen {
namespace {

// A file descriptor closed when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

int is_named(dl_phdr_info* info, size_t, void* name) {
  return info->dlpi_name != nullptr && std::strcmp(info->dlpi_name, static_cast<const char*>(name)) == 0;
}

std::string fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// Note [Libraries from memory]: the shared object is written to an
// anonymous file (memfd) and opened as /proc/self/fd/N. glibc finds an
// already loaded library by the name it was opened under before it looks
// at the file, and fd numbers are reused once closed, so a name some
// loaded library already has (an earlier kernel's) would hand back that
// library. While such a name is taken, the file is duplicated onto the
// next free number; the loader's list is the one source of truth, so a
// library that stays loaded after dlclose keeps its name.
void* open_from_memory(std::string_view bytes) {
  Descriptor file(memfd_create("ember-cpu-kernel", MFD_CLOEXEC));
  if (file.get() < 0) {
    sdk::fail(EMBER_STATUS_INTERNAL, std::string("cpu_codegen: memfd_create failed: ") + std::strerror(errno));
  }
  for (size_t written = 0; written < bytes.size();) {
    const ssize_t n = write(file.get(), bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      sdk::fail(EMBER_STATUS_INTERNAL, std::string("cpu_codegen: cannot write a kernel: ") + std::strerror(errno));
    }
    written += static_cast<size_t>(n);
  }
  std::vector<std::unique_ptr<Descriptor>> taken;
  int fd = file.get();
  std::string name = fd_path(fd);
  while (dl_iterate_phdr(is_named, name.data()) != 0) {
    const int next = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (next < 0) sdk::fail(EMBER_STATUS_INTERNAL, std::string("cpu_codegen: dup failed: ") + std::strerror(errno));
    taken.push_back(std::make_unique<Descriptor>(next));
    fd = next;
    name = fd_path(fd);
  }
  dlerror();
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              std::string("cpu_codegen: the kernel blob's library does not load: ") + (why ? why : "unknown error"));
  }
  return library;
}

// Note [Kernel parallel loop]: a generated kernel threads its outer points
// (or a split reduction's chunks) through the ek_parallel it is handed at
// launch, which runs them on this plugin's copy of the CPU plugin's
// work-claiming pool (Note [Work-claiming parallel loop] in parallel.cpp),
// at grain 1: the kernel has already cut its work into tasks by the
// extents alone, and the pool only chooses which thread runs which of them,
// so the results stay bitwise the same whatever the thread count. A pool
// of its own, rather than an OpenMP team in each kernel: an OpenMP team
// busy-waits in its barrier and stalls on a descheduled thread, which made
// every parallel kernel 10-25 times slower on a loaded machine, and its
// wait policy cannot be changed once the CPU plugin has loaded libgomp.
// An exception from the pool (out of memory starting it) cannot cross the
// generated code, which is built without exceptions: it is kept and
// rethrown once the kernel returns, the outputs then partly written.
struct LaunchContext {
  std::exception_ptr error;
};

void run_on_pool(void* context, int64_t count, void* body_data, ek_range_body body) noexcept {
  try {
    cpu::parallel_for(0, count, 1, [&](int64_t begin, int64_t end) { body(body_data, begin, end); });
  } catch (...) {
    auto& launch = *static_cast<LaunchContext*>(context);
    if (!launch.error) launch.error = std::current_exception();
  }
}

}  // namespace

LoadedKernel::LoadedKernel(const void* blob, size_t size) {
  const BlobContents contents = read_blob(blob, size);
  kernel_ = parse_ekir(contents.ir);
  library_ = open_from_memory(contents.shared_object);
  entry_ = reinterpret_cast<ek_kernel_entry>(dlsym(library_, contents.symbol.c_str()));
  if (entry_ == nullptr) {
    dlclose(library_);
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              "cpu_codegen: the kernel blob's library has no entry point '" + contents.symbol + "'");
  }
}

LoadedKernel::~LoadedKernel() { dlclose(library_); }

void LoadedKernel::launch(const ember_codegen_launch_args& args) const {
  kernel_ir::check_launch(kernel_, args, {"cpu_codegen", kDLCPU, "the CPU", /*data_is_address=*/true});
  std::vector<void*> buffers;
  for (int64_t b = 0; b < args.num_buffers; ++b) {
    buffers.push_back(static_cast<char*>(args.buffers[b].data) + args.buffers[b].byte_offset);
  }
  // This plugin's pool has a thread count of its own, apart from the CPU
  // plugin's; the core hands on what ember::set_num_threads set (ABI 1.4).
  if (args.struct_size >= EMBER_STRUCT_SIZE(ember_codegen_launch_args, num_threads) && args.num_threads > 0 &&
      args.num_threads != cpu::num_threads()) {
    cpu::set_num_threads(args.num_threads);
    cpu::resize_thread_pool();
  }
  LaunchContext context;
  const ek_parallel pool{run_on_pool, &context, cpu::num_threads()};
  const unsigned faults = entry_(buffers.data(), args.params, &pool);
  if (context.error) std::rethrow_exception(context.error);
  if (faults & kFaultIntegerDivisionByZero) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "integer division by zero");
  if (faults & kFaultNegativeIntegerPower) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "pow: integers to negative integer powers are not allowed");
  }
}

}  // namespace ember::cpu_codegen
