#pragma once

#include <memory>
#include <string>
#include <vector>

#include <ember/ember_plugin.h>

#include "compile/disk_cache.h"
#include "compile/fusion.h"
#include "ember/device.h"

namespace ember::plugin {
class CodegenProvider;
}

namespace ember::compile {

// A generated kernel loaded into its generator; unloaded when the last
// plan using it goes.
class LoadedKernel {
 public:
  LoadedKernel(const plugin::CodegenProvider& provider, ember_codegen_kernel_t handle, std::string ir, std::string name);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  void launch(Device device, std::vector<DLTensor>& buffers, const std::vector<int64_t>& params) const;
  const std::string& ir() const { return ir_; }

 private:
  const plugin::CodegenProvider& provider_;
  ember_codegen_kernel_t handle_;
  std::string ir_;
  std::string name_;  // the kernel's name and ops, for errors
};

// Counters since the process started (or the last reset): what tests and
// explain() read to tell a compile from a cache hit.
struct CodegenStats {
  int64_t compiles = 0;     // calls of a generator's compile
  int64_t disk_hits = 0;    // blobs loaded from the disk cache
  int64_t memory_hits = 0;  // kernels found loaded in this process
  int64_t failures = 0;     // kernels that run eagerly instead
};
CodegenStats codegen_stats();
void reset_codegen_stats();
// Forgets the kernels loaded in this process (tests of the disk cache).
void clear_loaded_kernels();

// The generator of `device`'s type, or null with the reason.
const plugin::CodegenProvider* generator_for(Device device, std::string* reason);

// Compiles (or finds) the kernel; null with `reason` when it must run
// eagerly. Never throws for a generator's failure.
std::shared_ptr<const LoadedKernel> compile_kernel(Device device, const FusedKernel& kernel, bool deterministic,
                                                   std::string* reason);

// The key of a kernel, as the disk cache computes it (tests).
KernelCacheKey cache_key_for(const plugin::CodegenProvider& provider, const std::string& ir, bool deterministic);

}  // namespace ember::compile
