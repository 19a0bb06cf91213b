#include "communicator.h"

#include <ember/sdk/collectives.hpp>

#include <cstring>
#include <thread>
#include <vector>

namespace ember::nccl_plugin {
namespace {

constexpr const char* kUniqueIdKey = "nccl_unique_id";

void record_failure(Communicator& communicator, const std::string& text) {
  std::lock_guard lock(communicator.failure_lock);
  if (communicator.failure.empty()) communicator.failure = text;
}

// Aborts NCCL once; the communicator is unusable afterwards.
void abort_now(Communicator& communicator, const std::string& reason) {
  record_failure(communicator, reason);
  std::lock_guard lock(communicator.failure_lock);
  if (communicator.aborted || communicator.comm == nullptr) return;
  communicator.aborted = true;
  ncclCommAbort(communicator.comm);
}

[[noreturn]] void fail_past_deadline(Communicator& communicator, const std::string& what) {
  const std::string text = "nccl " + what + ": not done after " + std::to_string(communicator.timeout.count()) +
                           " ms (a peer that stopped, or one that never made this call); the communicator was "
                           "aborted";
  abort_now(communicator, text);
  sdk::fail(EMBER_STATUS_DEADLINE_EXCEEDED, text);
}

[[noreturn]] void fail_aborted(Communicator& communicator, const std::string& what) {
  abort_now(communicator, "the communicator was aborted");
  sdk::fail(EMBER_STATUS_UNAVAILABLE, "nccl " + what + ": the communicator was aborted");
}

// Short sleeps first: most waits end within microseconds.
void pause(int round) {
  if (round < 64) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(round < 1024 ? 20 : 500));
  }
}

const ember_native_handles_extension* cuda_handles(const ember_extension* chain) {
  int guard = 0;
  for (const ember_extension* e = chain; e != nullptr && ++guard < 64; e = e->next) {
    if (e->type != EMBER_EXTENSION_NATIVE_HANDLES) continue;
    const auto* handles = reinterpret_cast<const ember_native_handles_extension*>(e);
    if (handles->api != nullptr && std::strcmp(handles->api, "cuda") == 0) return handles;
  }
  return nullptr;
}

// Rank 0's unique id, through the group's store.
ncclUniqueId exchange_unique_id(Communicator& communicator, const ember_store_api& store) {
  ncclUniqueId id{};
  if (communicator.rank == 0) {
    check_nccl(communicator, ncclGetUniqueId(&id), "ncclGetUniqueId");
    sdk::check(store.set(store.host_context, kUniqueIdKey, &id, sizeof(id)));
    return id;
  }
  std::vector<char> value;
  try {
    value = sdk::store_get(store, kUniqueIdKey, communicator.timeout.count());
  } catch (const sdk::Error& e) {
    sdk::fail(e.code(), "nccl: rank " + std::to_string(communicator.rank) + " did not get rank 0's NCCL unique id (" +
                            e.what() + "); did rank 0 reach its first collective on CUDA tensors?");
  }
  if (value.size() != sizeof(id)) {
    sdk::fail(EMBER_STATUS_INTERNAL, "nccl: rank 0's unique id has " + std::to_string(value.size()) + " bytes, not " +
                                         std::to_string(sizeof(id)));
  }
  std::memcpy(&id, value.data(), sizeof(id));
  return id;
}

}  // namespace

void check_cuda(cudaError_t result, const std::string& what) {
  if (result == cudaSuccess) return;
  const ember_status_code code = result == cudaErrorNoDevice || result == cudaErrorInsufficientDriver
                                     ? EMBER_STATUS_UNAVAILABLE
                                     : EMBER_STATUS_INTERNAL;
  sdk::fail(code, "nccl: " + what + ": " + cudaGetErrorString(result));
}

void check_nccl(Communicator& communicator, ncclResult_t result, const std::string& what) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  std::string text = "nccl " + what + ": " + ncclGetErrorString(result);
  if (const char* last = ncclGetLastError(communicator.comm); last != nullptr && *last != '\0') {
    text += " (" + std::string(last) + ")";
  }
  record_failure(communicator, text);
  const ember_status_code code = result == ncclRemoteError || result == ncclSystemError ? EMBER_STATUS_UNAVAILABLE
                                 : result == ncclInvalidArgument || result == ncclInvalidUsage
                                     ? EMBER_STATUS_INVALID_ARGUMENT
                                     : EMBER_STATUS_INTERNAL;
  sdk::fail(code, text);
}

void wait_while_in_progress(Communicator& communicator, const std::string& what, Clock::time_point deadline) {
  for (int round = 0;; ++round) {
    ncclResult_t state = ncclSuccess;
    check_nccl(communicator, ncclCommGetAsyncError(communicator.comm, &state), what);
    if (state != ncclInProgress) {
      check_nccl(communicator, state, what);
      return;
    }
    if (communicator.abort_requested) fail_aborted(communicator, what);
    if (Clock::now() > deadline) fail_past_deadline(communicator, what);
    pause(round);
  }
}

void wait_for_stream(Communicator& communicator, cudaStream_t stream, const std::string& what,
                     Clock::time_point deadline) {
  check_cuda(cudaEventRecord(communicator.done, stream), what + ": cudaEventRecord");
  for (int round = 0;; ++round) {
    const cudaError_t done = cudaEventQuery(communicator.done);
    if (done == cudaSuccess) return;
    if (done != cudaErrorNotReady) check_cuda(done, what);
    ncclResult_t state = ncclSuccess;
    check_nccl(communicator, ncclCommGetAsyncError(communicator.comm, &state), what);
    if (state != ncclSuccess && state != ncclInProgress) check_nccl(communicator, state, what);
    if (communicator.abort_requested) fail_aborted(communicator, what);
    if (Clock::now() > deadline) fail_past_deadline(communicator, what);
    pause(round);
  }
}

void fail_if_broken(Communicator& communicator, const std::string& what) {
  std::lock_guard lock(communicator.failure_lock);
  if (communicator.failure.empty()) return;
  sdk::fail(EMBER_STATUS_UNAVAILABLE,
            "nccl " + what + ": the communicator is unusable after an earlier failure: " + communicator.failure);
}

Communicator* create_communicator(const ember_communicator_config& config) {
  if (config.store == nullptr || config.store->get == nullptr || config.store->set == nullptr) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "nccl: the communicator config carries no store");
  }
  if (config.world_size < 1 || config.rank < 0 || config.rank >= config.world_size) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "nccl: rank " + std::to_string(config.rank) + " is outside a world of " +
                                                 std::to_string(config.world_size));
  }
  if (config.device_type == nullptr || std::strcmp(config.device_type, "cuda") != 0) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string("nccl: reads cuda tensors, not ") +
                                                 (config.device_type != nullptr ? config.device_type : "(none)"));
  }
  const ember_native_handles_extension* handles = cuda_handles(config.extension);
  if (handles == nullptr) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED,
              "nccl: the cuda device plugin lends no native handles (ABI 1.3's ember_native_handles_extension), "
              "so NCCL cannot order its work on that plugin's streams; use backend \"gloo\", which stages cuda "
              "tensors through host memory");
  }
  auto communicator = std::make_unique<Communicator>();
  communicator->rank = config.rank;
  communicator->world_size = config.world_size;
  communicator->device_index = config.device_index;
  communicator->handles = *handles;
  communicator->timeout = std::chrono::milliseconds(config.timeout_ms > 0 ? config.timeout_ms : 300000);
  try {
    int64_t ordinal = 0;
    sdk::check(handles->native_device(config.device_index, &ordinal));
    communicator->ordinal = static_cast<int>(ordinal);
    const std::string where = "cuda:" + std::to_string(config.device_index);
    check_cuda(cudaSetDevice(communicator->ordinal), "cudaSetDevice for " + where);
    check_cuda(cudaEventCreateWithFlags(&communicator->done, cudaEventDisableTiming), "cudaEventCreate on " + where);
    check_cuda(cudaMalloc(&communicator->barrier_word, sizeof(float)), "cudaMalloc on " + where);
    const auto deadline = Clock::now() + communicator->timeout;
    const ncclUniqueId id = exchange_unique_id(*communicator, *config.store);
    ncclConfig_t nccl_config = NCCL_CONFIG_INITIALIZER;
    nccl_config.blocking = 0;
    const std::string what =
        "connecting rank " + std::to_string(config.rank) + " of " + std::to_string(config.world_size) + " on " + where;
    check_nccl(*communicator,
               ncclCommInitRankConfig(&communicator->comm, config.world_size, id, config.rank, &nccl_config), what);
    wait_while_in_progress(*communicator, what, deadline);
  } catch (...) {
    destroy_communicator(communicator.release());
    throw;
  }
  return communicator.release();
}

void abort_communicator(Communicator& communicator) {
  communicator.abort_requested = true;
  if (!communicator.in_run) abort_now(communicator, "the communicator was aborted");
}

void destroy_communicator(Communicator* communicator) {
  if (communicator == nullptr) return;
  bool aborted = false, broken = false;
  {
    std::lock_guard lock(communicator->failure_lock);
    aborted = communicator->aborted;
    broken = !communicator->failure.empty();
  }
  if (communicator->comm != nullptr && !aborted) {
    // A clean finish flushes NCCL's own work; after a failure a peer may
    // be gone and finalizing would wait for it, so the communicator is
    // aborted instead. Either way the wait is bounded.
    try {
      if (broken) {
        abort_now(*communicator, communicator->failure);
      } else {
        check_nccl(*communicator, ncclCommFinalize(communicator->comm), "finalize");
        wait_while_in_progress(*communicator, "finalize", Clock::now() + std::chrono::seconds(10));
      }
    } catch (const sdk::Error&) {
      abort_now(*communicator, "finalize failed");
    }
    std::lock_guard lock(communicator->failure_lock);
    if (!communicator->aborted) ncclCommDestroy(communicator->comm);
  }
  if (communicator->done != nullptr) cudaEventDestroy(communicator->done);
  if (communicator->barrier_word != nullptr) cudaFree(communicator->barrier_word);
  delete communicator;
}

}  // namespace ember::nccl_plugin
