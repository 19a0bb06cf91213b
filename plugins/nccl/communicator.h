#pragma once
// One rank's NCCL communicator for one process group, on one CUDA device,
// created nonblocking so that no NCCL call can hang the rank: every wait is
// a poll that gives up at a deadline and aborts the communicator.
#include <ember/ember_plugin.hpp>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

namespace ember::nccl_plugin {

using Clock = std::chrono::steady_clock;

struct Communicator {
  ncclComm_t comm = nullptr;
  int rank = 0;
  int world_size = 1;
  int32_t device_index = 0;  // Ember's
  int ordinal = 0;           // CUDA's
  std::chrono::milliseconds timeout{0};
  ember_native_handles_extension handles{};
  cudaEvent_t done = nullptr;    // recorded after each call, polled
  void* barrier_word = nullptr;  // a barrier all-reduces one float here
  // Set by the first failure or by abort; every later call fails at once
  // with the first reason.
  std::mutex failure_lock;
  std::string failure;
  // abort() from the watchdog while run() polls: run sees the flag and
  // aborts NCCL itself, so that ncclCommAbort never races its own polls.
  std::atomic<bool> abort_requested{false};
  std::atomic<bool> in_run{false};
  bool aborted = false;  // under failure_lock
};

Communicator* create_communicator(const ember_communicator_config& config);
void abort_communicator(Communicator& communicator);
void destroy_communicator(Communicator* communicator);

// Fails with NCCL's own words (and its last error) unless `result` is
// ncclSuccess or ncclInProgress.
void check_nccl(Communicator& communicator, ncclResult_t result, const std::string& what);
void check_cuda(cudaError_t result, const std::string& what);
// Polls until the communicator's pending work left ncclInProgress (a
// nonblocking init or launch), or the deadline passed: then it aborts the
// communicator and fails with DEADLINE_EXCEEDED.
void wait_while_in_progress(Communicator& communicator, const std::string& what, Clock::time_point deadline);
// Polls until everything enqueued on `stream` so far has run, watching for
// NCCL's asynchronous errors, within the deadline as above.
void wait_for_stream(Communicator& communicator, cudaStream_t stream, const std::string& what,
                     Clock::time_point deadline);
void fail_if_broken(Communicator& communicator, const std::string& what);

}  // namespace ember::nccl_plugin
