#pragma once
// torch.distributed's ProcessGroup: one rank's membership of a group of
// processes, with one collective engine per device type (Note [Process
// groups]).
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <ember/ember_plugin.h>

#include "distributed/store.h"
#include "distributed/work.h"
#include "ember/stream.h"
#include "ember/tensor.h"

namespace ember::plugin {
class CollectiveEngine;
}

namespace ember::distributed {

enum class ReduceOp { Sum, Product, Min, Max, Avg };

struct ProcessGroupOptions {
  int rank = 0;
  int world_size = 1;
  Milliseconds timeout = kDefaultStoreTimeout;
  // Device type → engine name; the entry for "" serves every device type
  // without an entry of its own ("gloo" alone: every device, through host
  // staging where Gloo cannot read the memory).
  std::map<std::string, std::string> engines;
  std::string hostname = "127.0.0.1";
  // Scopes this group's keys in the store; unique per group.
  std::string name = "default";
  // Compare op, dtype and sizes across ranks before each collective
  // (Note [Collective fingerprints]).
  bool check_collectives = true;
  // Log every collective with its fingerprint.
  bool log_collectives = false;
};

// One call: the operands travel separately (ProcessGroup::run).
struct CollectiveArgs {
  ember_collective_kind kind = EMBER_COLLECTIVE_BARRIER;
  ReduceOp op = ReduceOp::Sum;
  int root = 0;  // or the peer of send and recv
  uint32_t tag = 0;
  std::vector<int64_t> input_splits, output_splits;  // all_to_all, in rows
  Milliseconds timeout{0};                           // 0: the group's
  // false: skip the fingerprint comparison for this call, for a caller
  // that checked its collectives' agreement already (DDP's buckets).
  bool check = true;
  // The caller waits for it at once: when nothing is queued or running it
  // runs on the caller's thread, without the hand-off to the worker.
  bool blocking = false;
};

const char* collective_name(ember_collective_kind kind);

class ProcessGroup {
 public:
  // Connects to every other rank through `store`; blocks until all joined or
  // the timeout passed.
  ProcessGroup(StorePtr store, ProcessGroupOptions options);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return options_.rank; }
  int size() const { return options_.world_size; }
  const ProcessGroupOptions& options() const { return options_; }
  const StorePtr& store() const { return store_; }
  // The engine serving a device type ("gloo").
  std::string engine_for(const std::string& device_type) const;
  uint64_t sequence() const { return sequence_; }

  // Checks the operands here, then queues the collective on the group's
  // worker; in-place kinds (all_reduce, broadcast, reduce, recv) pass their
  // tensor as `output`. Bad operands throw at once and change nothing.
  WorkPtr run(const CollectiveArgs& args, const std::optional<Tensor>& input, const std::optional<Tensor>& output);

  // Ends the group: aborts what is in flight (it fails naming the shutdown),
  // joins the threads and releases the communicators. Idempotent.
  void shutdown();

 private:
  struct Communicator;  // one engine's, for host memory or for one device
  struct Channel;       // one engine and its communicators
  struct Task;

  Channel& channel_for(const Tensor& operand) const;
  // The channel's communicator for `device` (nullopt: host memory), created
  // on first use for a device (a collective call of its own). `any_index`:
  // a call without operands (a barrier) takes the one of the device type
  // already connected, whatever its index.
  Communicator& communicator_for(Channel& channel, const std::optional<Device>& device, bool any_index);
  // A barrier's device on an engine of devices only: as ProcessGroupNCCL
  // guesses it, the rank modulo the device count.
  Device barrier_device(const plugin::CollectiveEngine& engine) const;
  std::unique_ptr<Communicator> connect(const plugin::CollectiveEngine& engine, const std::optional<Device>& device);
  void worker_loop();
  void watchdog_loop();
  void execute(Task& task);
  bool check_across_ranks(Task& task, Communicator& communicator, const ember_collective_call& call);
  void run_on_engine(Task& task, Communicator& communicator, ember_collective_call call);
  std::string diagnose_failure(uint64_t failed_sequence) const;
  std::string key(const std::string& name) const;

  StorePtr store_;
  ProcessGroupOptions options_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::map<std::string, Channel*> channel_by_device_;
  Channel* default_channel_ = nullptr;
  std::atomic<uint64_t> sequence_{0};  // collectives queued; p2p calls do not count

  std::mutex queue_lock_;
  std::condition_variable queue_ready_;
  std::deque<std::unique_ptr<Task>> queue_;
  bool stopping_ = false;
  bool busy_ = false;  // a task is executing, on the worker or a caller's thread
  // The deadline of the collective running now (steady clock ms, 0: none)
  // and its communicator, for the watchdog.
  std::atomic<int64_t> running_deadline_{0};
  std::atomic<Communicator*> running_{nullptr};
  std::atomic<bool> timed_out_{false};
  std::thread worker_, watchdog_;
  std::mutex watchdog_lock_;
  std::condition_variable watchdog_wake_;
};

}  // namespace ember::distributed
