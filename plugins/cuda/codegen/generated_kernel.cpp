#include "generated_kernel.h"

#include <ember/kernel_ir/launch_checks.h>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../devices.h"
#include "../runtime_error.h"
#include "../stream.h"
#include "architectures.h"
#include "compiled_kernel.h"
#include "cuda_dialect.h"
#include "nvrtc_compiler.h"

namespace ember::gpu::codegen {
namespace {

// Note [Loading generated kernels]
// A CUBIN is loaded through the CUDA runtime's library API
// (cudaLibraryLoadData, cudaLibraryGetKernel, and cudaLaunchKernel, which
// takes the cudaKernel_t as its function) rather than through driver entry
// points fetched with cudaGetDriverEntryPoint. The plugin links the runtime
// statically and never libcuda, so both work without a driver at build
// time; the runtime's API keeps generated kernels on the one error path of
// every other launch (cudaError_t through check(), with note_launch naming
// the kernel when an asynchronous fault surfaces later) and needs no table
// of function pointers, CUresult names or <cuda.h>. A library belongs to
// no context: the runtime loads it into a device's context the first time
// the kernel runs there (lazy loading, CUDA's default since 12.2), so one
// library serves every device of its architecture and the plugin keeps one
// per architecture present. The architecture is checked against the blob
// before the driver sees a byte of it (compiled_kernel.h, cubin_for).
// Under CUDA_MODULE_LOADING=EAGER the runtime loads each library into every
// context at once, which fails on a machine that mixes architectures: load
// then reports the runtime's error, and the core, whose generator cannot
// load what it compiled, sets the generator aside and runs compiled
// functions eagerly with that reason.

// Grid x is at most 2^31 - 1 blocks.
constexpr int64_t kMostBlocks = std::numeric_limits<int32_t>::max();

// The zeroed word a faulting kernel (integer division by zero, an integer
// to a negative power) or-s its fault bits into, read back after the
// launch as the eager kernels' error flag is (kernels/launch.cuh): the
// call's outputs are never used past a fault.
class FaultWord {
 public:
  explicit FaultWord(cudaStream_t stream) : stream_(stream) {
    check(cudaMallocAsync(reinterpret_cast<void**>(&word_), sizeof(unsigned), stream), "allocating a fault word");
    check(cudaMemsetAsync(word_, 0, sizeof(unsigned), stream), "zeroing a fault word");
  }
  ~FaultWord() { (void)cudaFreeAsync(word_, stream_); }
  FaultWord(const FaultWord&) = delete;
  FaultWord& operator=(const FaultWord&) = delete;

  unsigned** address() { return &word_; }

  void raise_if_set() const {
    unsigned faults = 0;
    check(cudaMemcpyAsync(&faults, word_, sizeof faults, cudaMemcpyDeviceToHost, stream_), "reading a fault word");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    if (faults & kernel_ir::kFaultIntegerDivisionByZero) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "integer division by zero");
    }
    if (faults & kernel_ir::kFaultNegativeIntegerPower) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "pow: integers to negative integer powers are not allowed");
    }
  }

 private:
  cudaStream_t stream_;
  unsigned* word_ = nullptr;
};

}  // namespace

GeneratedKernel::GeneratedKernel(const void* blob, size_t size) {
  const kernel_ir::KernelBlob contents = read_compiled_kernel(blob, size);
  kernel_ = kernel_ir::parse_ekir(contents.ir);
  source_ = generate_cuda_source(kernel_);
  // Every CUBIN is found before any is loaded: a blob that lacks one
  // reaches nothing of the driver.
  std::map<int, const std::string*> cubins;
  for (int architecture : device_architectures()) cubins[architecture] = &cubin_for(contents, architecture);
  std::map<int, cudaKernel_t> by_architecture;
  try {
    for (const auto& [architecture, cubin] : cubins) {
      cudaLibrary_t library = nullptr;
      check(cudaLibraryLoadData(&library, cubin->data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            "loading generated kernel '" + kernel_.name + "' (" + architecture_name(architecture) + ")");
      libraries_.push_back(library);
      check(cudaLibraryGetKernel(&by_architecture[architecture], library, "ek_kernel"),
            "finding ek_kernel in generated kernel '" + kernel_.name + "'");
    }
  } catch (...) {
    for (cudaLibrary_t library : libraries_) (void)cudaLibraryUnload(library);
    throw;
  }
  for (int32_t d = 0; d < Devices::instance().count(); ++d) {
    entry_points_.push_back(by_architecture.at(device_architecture(d)));
  }
  launched_ = std::make_unique<std::atomic<bool>[]>(entry_points_.size());
}

// A library must outlive the launches of its kernel still queued on the
// devices' streams (destroying code in use is undefined behaviour), so the
// devices that ran it finish their work first. Errors are ignored: at
// process exit the runtime may be gone, and an earlier kernel's fault
// reaches the next call on the device anyway.
GeneratedKernel::~GeneratedKernel() {
  int current = 0;
  const bool known = cudaGetDevice(&current) == cudaSuccess;
  for (size_t d = 0; d < entry_points_.size(); ++d) {
    if (launched_[d] && cudaSetDevice(static_cast<int>(d)) == cudaSuccess) (void)cudaDeviceSynchronize();
  }
  if (known) (void)cudaSetDevice(current);
  for (cudaLibrary_t library : libraries_) (void)cudaLibraryUnload(library);
  (void)cudaGetLastError();
}

void GeneratedKernel::launch(const ember_codegen_launch_args& args) const {
  kernel_ir::check_launch(kernel_, args, {"cuda codegen", kDLCUDA, "a cuda device", true});
  use_device(args.device_index);
  int64_t points = 1;
  for (const kernel_ir::Term& t : kernel_.outer) points *= t.is_param ? args.params[t.value] : t.value;
  if (points == 0) return;
  const int64_t groups = kernel_ir::groups_to_launch(source_, points);
  if (groups > kMostBlocks) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "cuda codegen: kernel '" + kernel_.name + "' would need " +
                                              std::to_string(groups) + " blocks, more than a grid holds");
  }
  // ek_kernel's parameters: each buffer's pointer and element offset, the
  // int64 parameters, the fault word (kernel_ir::generate_group_kernel).
  const size_t num_buffers = kernel_.buffers.size();
  std::vector<void*> pointers(num_buffers);
  std::vector<int64_t> offsets(num_buffers);
  std::vector<int64_t> params(args.params, args.params + args.num_params);
  std::vector<void*> values;
  for (size_t b = 0; b < num_buffers; ++b) {
    pointers[b] = args.buffers[b].data;
    offsets[b] = static_cast<int64_t>(args.buffers[b].byte_offset / sdk::element_size(kernel_.buffers[b].dtype));
    values.push_back(&pointers[b]);
    values.push_back(&offsets[b]);
  }
  for (int64_t& p : params) values.push_back(&p);
  const cudaStream_t stream = stream_of(args.stream);
  std::optional<FaultWord> fault;
  if (source_.can_fault) values.push_back(fault.emplace(stream).address());
  note_launch(args.device_index, kernel_.name.c_str());
  launched_[static_cast<size_t>(args.device_index)] = true;
  check(cudaLaunchKernel(reinterpret_cast<const void*>(entry_points_[static_cast<size_t>(args.device_index)]),
                         dim3(static_cast<unsigned>(groups)), dim3(kernel_ir::kGroupSize), values.data(), 0, stream),
        "launching generated kernel '" + kernel_.name + "'");
  if (fault) fault->raise_if_set();
}

}  // namespace ember::gpu::codegen
