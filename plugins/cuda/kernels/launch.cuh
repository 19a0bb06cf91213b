// What every kernel entry shares: the call's device and stream, grid sizes,
// scratch memory and the error flag kernels report through.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <ember/ember_plugin.hpp>

#include "../devices.h"
#include "../gpu_runtime.h"
#include "../runtime_error.h"
#include "../stream.h"

namespace ember::gpu {

inline constexpr int kBlockThreads = 256;

// Makes the call's device current and answers where and how wide to launch.
class CallContext {
 public:
  explicit CallContext(const ember_kernel_call& call)
      : call_(call), multiprocessors_(Devices::instance().at(call.device_index).multiprocessors) {
    use_device(call.device_index);
    note_launch(call.device_index, call.op_name);
  }
  cudaStream_t stream() const { return stream_of(call_.stream); }
  const ember_kernel_call& call() const { return call_; }

  // Blocks of kBlockThreads for `work` items of `per_thread` each, capped at
  // a few waves: kernels loop over the rest with a grid stride.
  unsigned blocks_for(int64_t work, int64_t per_thread = 1) const {
    const int64_t per_block = int64_t{kBlockThreads} * per_thread;
    const int64_t wanted = (work + per_block - 1) / per_block;
    const int64_t cap = int64_t{multiprocessors_ == 0 ? 80 : multiprocessors_} * 32;
    return static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, cap));
  }
  uint32_t multiprocessors() const { return multiprocessors_; }

  // Device memory valid until the work enqueued on the call's stream is done.
  void* scratch(size_t num_bytes) const {
    void* ptr = nullptr;
    if (num_bytes == 0) return nullptr;
    sdk::check(call_.allocate_scratch(&call_, num_bytes, &ptr));
    return ptr;
  }

 private:
  const ember_kernel_call& call_;
  uint32_t multiprocessors_;
};

// Codes a kernel writes to its error flag; 0 means no error.
enum KernelError : int32_t { kNoError = 0, kDivisionByZero = 1, kNegativePower = 2, kIndexOutOfRange = 3 };

// A zeroed device word for kernels that find data-dependent errors (index
// values, integer division by zero). raise_if_set() waits for the stream and
// throws the matching status, so outputs of a failed call are never used.
class ErrorFlag {
 public:
  explicit ErrorFlag(const CallContext& context)
      : context_(context), flag_(static_cast<int32_t*>(context.scratch(sizeof(int32_t)))) {
    check(cudaMemsetAsync(flag_, 0, sizeof(int32_t), context.stream()), "cudaMemsetAsync of an error flag");
  }
  int32_t* device_word() const { return flag_; }

  void raise_if_set() const {
    int32_t code = kNoError;
    check(cudaMemcpyAsync(&code, flag_, sizeof code, cudaMemcpyDeviceToHost, context_.stream()),
          "reading an error flag");
    check(cudaStreamSynchronize(context_.stream()), "cudaStreamSynchronize");
    const std::string op = context_.call().op_name;
    switch (code) {
      case kNoError: return;
      case kDivisionByZero: sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, op + ": integer division by zero");
      case kNegativePower:
        sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, op + ": integers to negative integer powers are not allowed");
      case kIndexOutOfRange: sdk::fail(EMBER_STATUS_OUT_OF_RANGE, op + ": index out of range");
      default: sdk::fail(EMBER_STATUS_INTERNAL, op + ": kernel error " + std::to_string(code));
    }
  }

 private:
  const CallContext& context_;
  int32_t* flag_;
};

// Index of this thread in the grid, and the grid's width, for grid-stride
// loops.
__device__ inline int64_t global_thread() { return int64_t{blockIdx.x} * blockDim.x + threadIdx.x; }
__device__ inline int64_t grid_threads() { return int64_t{gridDim.x} * blockDim.x; }

}  // namespace ember::gpu
