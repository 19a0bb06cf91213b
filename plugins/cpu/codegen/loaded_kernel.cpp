#include "loaded_kernel.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ember/sdk/status.hpp>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "blob.h"
#include "launch_checks.h"

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

}  // namespace

LoadedKernel::LoadedKernel(const void* blob, size_t size) {
  const BlobContents contents = read_blob(blob, size);
  kernel_ = parse_ekir(contents.ir);
  library_ = open_from_memory(contents.shared_object);
  entry_ = reinterpret_cast<KernelEntry>(dlsym(library_, contents.symbol.c_str()));
  if (entry_ == nullptr) {
    dlclose(library_);
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              "cpu_codegen: the kernel blob's library has no entry point '" + contents.symbol + "'");
  }
}

LoadedKernel::~LoadedKernel() { dlclose(library_); }

void LoadedKernel::launch(const ember_codegen_launch_args& args) const {
  const std::vector<void*> buffers = check_launch(kernel_, args);
  const unsigned faults = entry_(buffers.data(), args.params);
  if (faults & kFaultIntegerDivisionByZero) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "integer division by zero");
  if (faults & kFaultNegativeIntegerPower) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "pow: integers to negative integer powers are not allowed");
  }
}

}  // namespace ember::cpu_codegen
