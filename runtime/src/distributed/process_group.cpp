#include "distributed/process_group.h"

#include <chrono>

#include <ember/sdk/collectives.hpp>

#include "core/logging.h"
#include "distributed/collective_checks.h"
#include "distributed/inline_collectives.h"
#include "ember/autograd.h"
#include "ember/dim_vector.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "plugin/backend_step.h"
#include "plugin/collective_engine.h"
#include "plugin/device_registry.h"
#include "plugin/loader.h"
#include "plugin/status.h"

namespace ember::distributed {

// Note [Process groups]
// A group owns one channel (an engine's communicator) per engine it uses,
// a worker thread that runs its collectives one at a time in the order they
// were queued, and a watchdog. Every rank queues the same collectives in
// the same order, so the n-th collective carries sequence number n on
// every rank; engines derive their tags from it, fingerprints compare it.
// An engine that reads a device's memory in place (NCCL) gets the
// device's tensors and the caller's current stream, with the device
// plugin's native handles lent at connection; its communicator for a
// device is connected at the first collective on that device, which every
// rank reaches together. Operands an engine cannot read in place (another
// device's memory, a non-contiguous view) are staged: copied into a
// contiguous tensor (on the host, or on the device for a device engine)
// before the call and back into the caller's tensor after it. The
// watchdog aborts the channel of a collective that outlives its timeout,
// and a rank whose collective failed publishes why under its rank, so that
// the others can name it. Each rank's heartbeat carries a count and the
// last sequence number it queued: a rank that stopped (killed, hung in
// native code) is named by the count it stopped writing, a rank that never
// called the collective (stalled in its own code) by its sequence number.

namespace {

constexpr auto kHeartbeatPeriod = std::chrono::milliseconds(200);

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ember_reduce_op engine_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::Product:
      return EMBER_REDUCE_PRODUCT;
    case ReduceOp::Min:
      return EMBER_REDUCE_MIN;
    case ReduceOp::Max:
      return EMBER_REDUCE_MAX;
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      break;
  }
  return EMBER_REDUCE_SUM;
}

// The store, as the engine sees it: keys scoped to the group and engine.
struct EngineStore {
  StorePtr store;
  std::string prefix;
  ember_store_api api{};

  static ember_status* set(void* self, const char* key, const void* value, size_t size) {
    auto* s = static_cast<EngineStore*>(self);
    try {
      const auto* bytes = static_cast<const std::uint8_t*>(value);
      s->store->set(s->prefix + key, Bytes(bytes, bytes + size));
      return nullptr;
    } catch (const std::exception& e) {
      return plugin::make_status(EMBER_STATUS_UNAVAILABLE, e.what());
    }
  }

  static ember_status* get(void* self, const char* key, int64_t timeout_ms, ember_byte_sink* out) {
    auto* s = static_cast<EngineStore*>(self);
    try {
      s->store->wait({s->prefix + key}, Milliseconds(timeout_ms > 0 ? timeout_ms : s->store->timeout().count()));
      const Bytes value = s->store->get(s->prefix + key);
      return out->write(out, value.data(), value.size());
    } catch (const Error& e) {
      return plugin::make_status(
          e.kind() == ErrorKind::DistributedStore ? EMBER_STATUS_DEADLINE_EXCEEDED : EMBER_STATUS_UNAVAILABLE,
          e.what());
    } catch (const std::exception& e) {
      return plugin::make_status(EMBER_STATUS_UNAVAILABLE, e.what());
    }
  }

  static ember_status* add(void* self, const char* key, int64_t delta, int64_t* result) {
    auto* s = static_cast<EngineStore*>(self);
    try {
      *result = s->store->add(s->prefix + key, delta);
      return nullptr;
    } catch (const std::exception& e) {
      return plugin::make_status(EMBER_STATUS_UNAVAILABLE, e.what());
    }
  }
};

Bytes text_bytes(const std::string& text) { return Bytes(text.begin(), text.end()); }

// An engine of devices only (NCCL) needs one of them here, as
// ProcessGroupNCCL needs a GPU: say so when the group is made, not at its
// first collective.
void require_devices(const plugin::CollectiveEngine& engine) {
  std::string loaded;
  for (const plugin::DeviceBackend* backend : plugin::DeviceRegistry::get().all()) {
    if (engine.serves_device(backend->type_name) && backend->device_count > 0) return;
    loaded += (loaded.empty() ? "" : ", ") + backend->type_name;
  }
  throw_error(ErrorKind::DistributedBackend,
              "init_process_group: collective engine '" + engine.name() + "' reads " + engine.device_types() +
                  " tensors, but no such device is available (device types with devices here: " +
                  (loaded.empty() ? "none" : loaded) + ")");
}

DLDevice dl_device_of(const std::optional<Device>& device) {
  if (!device) return DLDevice{kDLCPU, 0};
  return DLDevice{plugin::backend_for(*device).api->dl_device_type, device->index};
}

}  // namespace

const char* collective_name(ember_collective_kind kind) { return sdk::collective_name(kind); }

struct ProcessGroup::Communicator {
  const plugin::CollectiveEngine* engine = nullptr;
  ember_communicator_t handle = nullptr;
  std::optional<Device> device;  // nullopt: host memory
  EngineStore store;
};

struct ProcessGroup::Channel {
  const plugin::CollectiveEngine* engine = nullptr;
  // Reads host memory: connected with the group.
  std::unique_ptr<Communicator> host;
  // Reads a device type's memory in place: connected at first use. One
  // device of a type per process, as every rank keys the store alike.
  std::map<std::string, std::unique_ptr<Communicator>> by_device_type;
};

struct ProcessGroup::Task {
  CollectiveArgs args;
  uint64_t sequence = 0;
  Channel* channel = nullptr;
  std::optional<Device> engine_device;  // where the engine reads; nullopt: host memory
  std::optional<Stream> stream;         // the caller's current stream of engine_device
  std::optional<Tensor> input, output;  // what the engine reads and writes
  std::optional<Tensor> destination;    // the caller's output, when staged
  std::string description;
  WorkPtr work;
};

std::string ProcessGroup::key(const std::string& name) const { return "ember/" + options_.name + "/" + name; }

ProcessGroup::ProcessGroup(StorePtr store, ProcessGroupOptions options)
    : store_(std::move(store)), options_(std::move(options)) {
  if (options_.world_size < 1 || options_.rank < 0 || options_.rank >= options_.world_size) {
    throw_error(ErrorKind::Value, "init_process_group: rank " + std::to_string(options_.rank) +
                                      " is outside a world of size " + std::to_string(options_.world_size));
  }
  if (options_.engines.empty()) options_.engines[""] = "gloo";
  plugin::discover_plugins();
  std::map<std::string, Channel*> by_engine;
  for (const auto& [device_type, engine_name] : options_.engines) {
    Channel*& channel = by_engine[engine_name];
    if (channel == nullptr) {
      const plugin::CollectiveEngine* engine = plugin::collective_engine(engine_name);
      if (engine == nullptr) {
        std::string known;
        for (const plugin::CollectiveEngine* e : plugin::collective_engines()) known += " " + e->name();
        throw_error(ErrorKind::Value, "init_process_group: no collective engine '" + engine_name +
                                          "' is loaded (engines loaded:" + (known.empty() ? " none" : known) +
                                          "); its plugin must be in the plugin path");
      }
      auto owned = std::make_unique<Channel>();
      owned->engine = engine;
      if (engine->serves_device("cpu")) {
        owned->host = connect(*engine, std::nullopt);
      } else {
        require_devices(*engine);
      }
      channel = owned.get();
      channels_.push_back(std::move(owned));
    }
    if (device_type.empty()) {
      default_channel_ = channel;
    } else {
      channel_by_device_[device_type] = channel;
    }
  }
  worker_ = std::thread([this] { worker_loop(); });
  watchdog_ = std::thread([this] { watchdog_loop(); });
}

ProcessGroup::~ProcessGroup() { shutdown(); }

std::unique_ptr<ProcessGroup::Communicator> ProcessGroup::connect(const plugin::CollectiveEngine& engine,
                                                                  const std::optional<Device>& device) {
  auto communicator = std::make_unique<Communicator>();
  communicator->engine = &engine;
  communicator->device = device;
  const std::string device_type = device ? device->type_name() : "cpu";
  communicator->store.store = store_;
  communicator->store.prefix = key("engine/" + engine.name() + "/" + (device ? device_type + "/" : ""));
  communicator->store.api = {sizeof(ember_store_api), &communicator->store, &EngineStore::set, &EngineStore::get,
                             &EngineStore::add};
  ember_communicator_config config{};
  config.struct_size = sizeof(config);
  config.rank = options_.rank;
  config.world_size = options_.world_size;
  config.device_type = device_type.c_str();
  config.device_index = device ? device->index : 0;
  if (device) {
    const plugin::DeviceBackend& backend = plugin::backend_for(*device);
    if (backend.native_handles) config.extension = &backend.native_handles->header;
  }
  config.hostname = options_.hostname.c_str();
  config.timeout_ms = options_.timeout.count();
  config.store = &communicator->store.api;
  communicator->handle = engine.create(config);
  return communicator;
}

Device ProcessGroup::barrier_device(const plugin::CollectiveEngine& engine) const {
  for (const plugin::DeviceBackend* backend : plugin::DeviceRegistry::get().all()) {
    if (engine.serves_device(backend->type_name) && backend->device_count > 0) {
      return Device(backend->type, static_cast<int32_t>(rank() % backend->device_count));
    }
  }
  throw_error(ErrorKind::DistributedBackend, "barrier: collective engine '" + engine.name() + "' has no device here");
}

ProcessGroup::Communicator& ProcessGroup::communicator_for(Channel& channel, const std::optional<Device>& device,
                                                           bool any_index) {
  if (!device) return *channel.host;
  std::unique_ptr<Communicator>& slot = channel.by_device_type[device->type_name()];
  if (slot == nullptr) {
    slot = connect(*channel.engine, device);
  } else if (!any_index && !(*slot->device == *device)) {
    throw_error(ErrorKind::Value, "process group '" + options_.name + "' runs its " + device->type_name() +
                                      " collectives on " + slot->device->str() + "; one on " + device->str() +
                                      " needs a group of its own");
  }
  return *slot;
}

std::string ProcessGroup::engine_for(const std::string& device_type) const {
  auto it = channel_by_device_.find(device_type);
  const Channel* channel = it != channel_by_device_.end() ? it->second : default_channel_;
  return channel != nullptr ? channel->engine->name() : "";
}

ProcessGroup::Channel& ProcessGroup::channel_for(const Tensor& operand) const {
  const std::string type = operand.device().type_name();
  auto it = channel_by_device_.find(type);
  Channel* channel = it != channel_by_device_.end() ? it->second : default_channel_;
  if (channel == nullptr) {
    throw_error(ErrorKind::Value, "process group '" + options_.name + "' has no collective engine for " + type +
                                      " tensors (pass a backend such as \"cpu:gloo," + type + ":gloo\")");
  }
  return *channel;
}

WorkPtr ProcessGroup::run(const CollectiveArgs& args, const std::optional<Tensor>& input,
                          const std::optional<Tensor>& output) {
  {
    std::lock_guard lock(queue_lock_);
    if (stopping_) {
      throw_error(ErrorKind::DistributedBackend,
                  std::string(collective_name(args.kind)) + ": the process group was destroyed");
    }
  }
  check_operands(args, input, output, rank(), size());
  auto task = std::make_unique<Task>();
  task->args = args;
  const bool p2p = args.kind == EMBER_COLLECTIVE_SEND || args.kind == EMBER_COLLECTIVE_RECV;
  const std::optional<Tensor>& any = output && output->defined() ? output : input;
  if (any && any->defined()) {
    task->channel = &channel_for(*any);
    const std::string dtype(dtype_name(any->dtype()));
    if (!task->channel->engine->moves_dtype(dtype)) {
      throw_error(ErrorKind::Value, std::string(collective_name(args.kind)) + ": collective engine '" +
                                        task->channel->engine->name() + "' does not move " + dtype + " tensors");
    }
  } else {
    task->channel = default_channel_ != nullptr ? default_channel_ : channels_.front().get();
  }
  const plugin::CollectiveEngine& engine = *task->channel->engine;
  const bool has_operand = any && any->defined();
  if (has_operand && !any->device().is_cpu() && engine.serves_device(any->device().type_name())) {
    task->engine_device = any->device();
  } else if (!has_operand && !engine.serves_device("cpu")) {
    task->engine_device = barrier_device(engine);
  } else if (!engine.serves_device("cpu")) {
    const std::string type = any && any->defined() ? any->device().type_name() : "cpu";
    throw_error(ErrorKind::Value, std::string(collective_name(args.kind)) + ": collective engine '" + engine.name() +
                                      "' reads " + engine.device_types() + " tensors, not " + type +
                                      " ones (pass a backend such as \"cpu:gloo," + engine.device_types() + ":" +
                                      engine.name() + "\")");
  }
  if (task->engine_device) task->stream = current_stream(*task->engine_device);
  // In place where the engine reads the memory, else a contiguous copy
  // where it does: on the device or on the host.
  auto readable = [&](const Tensor& t) {
    return (task->engine_device ? t.device() == *task->engine_device : t.device().is_cpu()) && t.is_contiguous();
  };
  auto staged = [&](const Tensor& t) {
    return task->engine_device ? t.contiguous() : t.to(Device(kCpuDeviceType, 0)).contiguous();
  };
  if (input && input->defined()) task->input = readable(*input) ? *input : staged(*input);
  if (output && output->defined()) {
    if (readable(*output)) {
      task->output = *output;
    } else {
      task->output = staged(*output);
      task->destination = *output;
    }
  }
  std::unique_lock lock(queue_lock_);
  if (stopping_) {
    throw_error(ErrorKind::DistributedBackend,
                std::string(collective_name(args.kind)) + ": the process group was destroyed");
  }
  if (!p2p) task->sequence = ++sequence_;
  task->description = std::string(collective_name(args.kind)) +
                      (p2p ? " with peer " + std::to_string(args.root) + " (tag " + std::to_string(args.tag) + ")"
                           : " (sequence " + std::to_string(task->sequence) + ")") +
                      " on rank " + std::to_string(rank()) + " of " + std::to_string(size()) + ", " +
                      describe_operand(any);
  task->work = std::make_shared<Work>(task->description);
  WorkPtr work = task->work;
  if (args.blocking && queue_.empty() && !busy_) {
    busy_ = true;
    lock.unlock();
    execute(*task);
    lock.lock();
    busy_ = false;
    queue_ready_.notify_all();
    return work;
  }
  queue_.push_back(std::move(task));
  queue_ready_.notify_one();
  return work;
}

// Compares every rank's call before any operand moves
// (Note [Collective fingerprints]); returns whether the collective finished
// inside the check (Note [Collectives inside the check]).
bool ProcessGroup::check_across_ranks(Task& task, Communicator& communicator, const ember_collective_call& call) {
  // Host operands that fit ride in the slot behind the fingerprint.
  const std::optional<Tensor> carried =
      communicator.device ? std::nullopt : inline_operand(task.args, task.input, task.output);
  const Fingerprint mine = fingerprint_of(task.args, task.sequence, task.input, task.output);
  const Device where = communicator.device.value_or(Device(kCpuDeviceType, 0));
  const DLDevice dl_device = dl_device_of(communicator.device);
  Tensor sent = slot_of(mine, carried).to(where);
  Tensor all = empty({static_cast<int64_t>(kSlotBytes) * size()}, TensorOptions(DType::UInt8, where));
  DLTensor in = plugin::to_dl_tensor(sent, dl_device);
  DLTensor out = plugin::to_dl_tensor(all, dl_device);
  ember_collective_call exchange = call;
  exchange.kind = EMBER_COLLECTIVE_ALL_GATHER;
  exchange.sequence = 2 * task.sequence;
  exchange.input = &in;
  exchange.output = &out;
  task.channel->engine->run(communicator.handle, exchange);
  const Tensor all_host = all.to(Device(kCpuDeviceType, 0));
  const auto* slots = all_host.data<uint8_t>();
  std::vector<Fingerprint> gathered;
  for (int r = 0; r < size(); ++r) gathered.push_back(fingerprint_in(slots, r));
  if (options_.log_collectives) log().info("rank {}: {}", rank(), describe_fingerprint(mine));
  const std::string mismatch = compare_fingerprints(gathered, size());
  if (!mismatch.empty()) throw_error(ErrorKind::DistributedBackend, task.description + ": " + mismatch);
  if (!carried) return false;
  finish_inline(task.args, rank(), size(), slots, task.output);
  return true;
}

// The collective itself, its sequence number the check's plus one.
void ProcessGroup::run_on_engine(Task& task, Communicator& communicator, ember_collective_call call) {
  const DLDevice dl_device = dl_device_of(communicator.device);
  std::optional<DLTensor> in, out;
  if (task.input) in = plugin::to_dl_tensor(*task.input, dl_device);
  if (task.output) out = plugin::to_dl_tensor(*task.output, dl_device);
  call.sequence = 2 * task.sequence + 1;
  call.input = in ? &*in : nullptr;
  call.output = out ? &*out : nullptr;
  if (!call.input && task.args.kind != EMBER_COLLECTIVE_GATHER && task.args.kind != EMBER_COLLECTIVE_SCATTER) {
    call.input = call.output;
  }
  if (task.args.kind == EMBER_COLLECTIVE_ALL_TO_ALL) {
    // Rows to elements: the engine counts elements.
    for (auto [splits, operand, field] : {std::tuple{&task.args.input_splits, &task.input, &call.input_splits},
                                          std::tuple{&task.args.output_splits, &task.output, &call.output_splits}}) {
      if (splits->empty()) continue;
      const int64_t rows = (*operand)->dim() > 0 ? (*operand)->sizes()[0] : 1;
      const int64_t row = rows > 0 ? (*operand)->numel() / rows : 0;
      for (int64_t& s : *splits) s *= row;
      *field = splits->data();
    }
  }
  task.channel->engine->run(communicator.handle, call);
}

void ProcessGroup::execute(Task& task) {
  const Milliseconds timeout = task.args.timeout.count() > 0 ? task.args.timeout : options_.timeout;
  ember_collective_call call{};
  call.struct_size = sizeof(call);
  call.kind = task.args.kind;
  call.reduce_op = engine_op(task.args.op);
  call.root = task.args.root;
  call.user_tag = task.args.tag;
  call.timeout_ms = timeout.count();
  const bool p2p = task.args.kind == EMBER_COLLECTIVE_SEND || task.args.kind == EMBER_COLLECTIVE_RECV;
  try {
    // The device's work after the call (an average, a copy back) follows
    // it on the caller's stream.
    std::optional<StreamGuard> on_callers_stream;
    if (task.stream) {
      on_callers_stream.emplace(*task.stream);
      call.stream = static_cast<ember_stream_t>(task.stream->native_handle());
    }
    Communicator& communicator = communicator_for(*task.channel, task.engine_device,
                                                  /*any_index=*/!task.input && !task.output);
    running_ = &communicator;
    running_deadline_ = now_ms() + timeout.count();
    const bool finished = options_.check_collectives && task.args.check && !p2p && size() > 1 &&
                          check_across_ranks(task, communicator, call);
    if (!finished) run_on_engine(task, communicator, call);
    running_deadline_ = 0;
    autograd::NoGradGuard no_grad;
    if (task.args.op == ReduceOp::Avg && task.output &&
        (task.args.kind != EMBER_COLLECTIVE_REDUCE || rank() == task.args.root)) {
      Tensor averaged = div(*task.output, Scalar(static_cast<double>(size())));
      task.output->copy_(averaged);
    }
    if (task.destination) task.destination->copy_(*task.output);
    task.work->set_result({task.destination ? *task.destination : task.output ? *task.output : Tensor()});
    task.work->complete();
  } catch (const Error& e) {
    running_deadline_ = 0;
    std::string message = e.what();
    if (message.rfind(task.description, 0) != 0) message = task.description + ": " + message;
    if (timed_out_) message += " (the watchdog aborted it after " + std::to_string(timeout.count()) + " ms)";
    if (e.kind() == ErrorKind::DistributedBackend) {
      try {
        store_->set(key("error/" + std::to_string(rank())), text_bytes(message.substr(0, 400)));
      } catch (const std::exception&) {
        // The store may be gone with the rank that hosted it.
      }
      const std::string diagnosis = diagnose_failure(task.sequence);
      if (!diagnosis.empty()) message += "; " + diagnosis;
    }
    task.work->fail(std::make_exception_ptr(Error(e.kind(), message)));
  } catch (const std::exception& e) {
    running_deadline_ = 0;
    task.work->fail(std::make_exception_ptr(Error(ErrorKind::DistributedBackend, task.description + ": " + e.what())));
  }
}

std::string ProcessGroup::diagnose_failure(uint64_t failed_sequence) const {
  // Two looks at every rank's heartbeat, a few periods apart: a rank whose
  // count did not move has stopped. Only check() and get() of keys that
  // exist: a store that is gone must not make this wait.
  auto beats = [&] {
    std::vector<std::optional<std::string>> out(size());
    for (int r = 0; r < size(); ++r) {
      if (r == rank()) continue;
      try {
        const std::string k = key("heartbeat/" + std::to_string(r));
        if (store_->check({k})) {
          const Bytes b = store_->get(k);
          out[r] = std::string(b.begin(), b.end());
        }
      } catch (const std::exception&) {
        return std::vector<std::optional<std::string>>();
      }
    }
    return out;
  };
  const auto before = beats();
  if (before.empty()) return "the store is unreachable too (was it hosted by a rank that stopped?)";
  std::this_thread::sleep_for(kHeartbeatPeriod * 4);
  const auto after = beats();
  std::string text;
  for (int r = 0; r < size(); ++r) {
    if (r == rank()) continue;
    try {
      const std::string k = key("error/" + std::to_string(r));
      if (store_->check({k})) {
        const Bytes b = store_->get(k);
        text += (text.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) +
                " reported: " + std::string(b.begin(), b.end());
        continue;
      }
    } catch (const std::exception&) {
    }
    if (after.empty() || after[r] == before[r]) {
      text += (text.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) +
              " stopped responding (its heartbeat stopped)";
      continue;
    }
    // "<count> <sequence>"
    const std::string& beat = *after[r];
    const uint64_t queued = std::stoull(beat.substr(beat.find(' ') + 1));
    if (failed_sequence != 0 && queued < failed_sequence) {
      text += (text.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r) +
              " has not called it (its last collective is sequence " + std::to_string(queued) + ")";
    }
  }
  return text;
}

void ProcessGroup::worker_loop() {
  for (;;) {
    std::unique_ptr<Task> task;
    {
      std::unique_lock lock(queue_lock_);
      queue_ready_.wait(lock, [&] { return stopping_ || (!queue_.empty() && !busy_); });
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
    }
    execute(*task);
    std::lock_guard lock(queue_lock_);
    busy_ = false;
  }
}

void ProcessGroup::watchdog_loop() {
  const std::string heartbeat = key("heartbeat/" + std::to_string(rank()));
  int64_t beat = 0;
  std::unique_lock lock(watchdog_lock_);
  for (;;) {
    if (watchdog_wake_.wait_for(lock, kHeartbeatPeriod, [&] { return stopping_; })) return;
    try {
      store_->set(heartbeat, text_bytes(std::to_string(++beat) + " " + std::to_string(sequence_.load())));
    } catch (const std::exception&) {
      // A store that is gone takes no heartbeats; the collectives say why.
    }
    const int64_t deadline = running_deadline_;
    // A grace period past the engine's own timeout, which ends most stalls.
    if (deadline != 0 && now_ms() > deadline + 1000) {
      if (Communicator* communicator = running_) {
        timed_out_ = true;
        log().warn("rank {}: a collective outlived its timeout; aborting its engine", rank());
        communicator->engine->abort(communicator->handle);
        running_deadline_ = 0;
      }
    }
  }
}

void ProcessGroup::shutdown() {
  {
    std::lock_guard lock(queue_lock_);
    if (stopping_ && !worker_.joinable()) return;
    stopping_ = true;
    for (auto& task : queue_) {
      task->work->fail(std::make_exception_ptr(
          Error(ErrorKind::DistributedBackend, task->description + ": the process group was destroyed")));
    }
    queue_.clear();
  }
  queue_ready_.notify_all();
  { std::lock_guard lock(watchdog_lock_); }
  watchdog_wake_.notify_all();
  if (running_deadline_ != 0) {
    if (Communicator* communicator = running_) communicator->engine->abort(communicator->handle);
  }
  if (worker_.joinable()) worker_.join();
  if (watchdog_.joinable()) watchdog_.join();
  {
    // A blocking call running on its caller's thread ends (aborted above).
    std::unique_lock lock(queue_lock_);
    queue_ready_.wait(lock, [&] { return !busy_; });
  }
  // The channels themselves stay until the group is destroyed: a call that
  // races with the shutdown still finds them (and then stopping_).
  for (auto& channel : channels_) {
    auto release = [](Communicator* communicator) {
      if (communicator == nullptr || communicator->handle == nullptr) return;
      communicator->engine->destroy(communicator->handle);
      communicator->handle = nullptr;
    };
    release(channel->host.get());
    for (auto& [type, communicator] : channel->by_device_type) release(communicator.get());
  }
}

}  // namespace ember::distributed
