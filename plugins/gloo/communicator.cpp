#include "communicator.h"

#include <ember/sdk/collectives.hpp>

#include <gloo/common/error.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <vector>

namespace ember::gloo_plugin {
namespace {

// Gloo's rendezvous store over the core's: Gloo waits for each peer's
// address under the key of its rank.
class CoreStore : public gloo::rendezvous::Store {
 public:
  CoreStore(const ember_store_api& api, std::chrono::milliseconds timeout) : api_(api), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    sdk::check(api_.set(api_.host_context, key.c_str(), data.data(), data.size()));
  }

  std::vector<char> get(const std::string& key) override { return sdk::store_get(api_, key.c_str(), timeout_.count()); }

  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }

  // The core's get waits for one key; waiting for each in turn is waiting
  // for all, within the one deadline.
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (const std::string& key : keys) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      sdk::store_get(api_, key.c_str(), std::max<int64_t>(left.count(), 1));
    }
  }

 private:
  ember_store_api api_;
  std::chrono::milliseconds timeout_;
};

bool is_timeout(const std::string& message) { return message.find("Timed out") != std::string::npos; }

}  // namespace

Communicator* create_communicator(const ember_communicator_config& config) {
  if (config.store == nullptr || config.store->get == nullptr || config.store->set == nullptr) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "gloo: the communicator config carries no store");
  }
  if (config.world_size < 1 || config.rank < 0 || config.rank >= config.world_size) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "gloo: rank " + std::to_string(config.rank) + " is outside a world of " +
                                                 std::to_string(config.world_size));
  }
  auto communicator = std::make_unique<Communicator>();
  communicator->rank = config.rank;
  communicator->world_size = config.world_size;
  communicator->timeout = std::chrono::milliseconds(config.timeout_ms > 0 ? config.timeout_ms : 300000);
  gloo::transport::tcp::attr attr;
  attr.hostname = config.hostname != nullptr && *config.hostname != '\0' ? config.hostname : "127.0.0.1";
  const std::string what = "connecting rank " + std::to_string(config.rank) + " of " +
                           std::to_string(config.world_size) + " on " + attr.hostname;
  run_guarded(*communicator, what, [&] {
    communicator->device = gloo::transport::tcp::CreateDevice(attr);
    communicator->context = std::make_shared<gloo::rendezvous::Context>(config.rank, config.world_size);
    communicator->context->setTimeout(communicator->timeout);
    CoreStore store(*config.store, communicator->timeout);
    communicator->context->connectFullMesh(store, communicator->device);
  });
  return communicator.release();
}

void abort_communicator(Communicator& communicator) {
  {
    std::lock_guard lock(communicator.failure_lock);
    if (communicator.failure.empty()) communicator.failure = "the communicator was aborted";
  }
  communicator.aborted = true;
  if (communicator.context) communicator.context->closeConnections();
}

std::string describe_failure(Communicator& communicator, const std::string& what, const std::exception& error,
                             ember_status_code* code) {
  const std::string message = error.what();
  if (communicator.aborted) {
    *code = EMBER_STATUS_UNAVAILABLE;
  } else if (is_timeout(message)) {
    *code = EMBER_STATUS_DEADLINE_EXCEEDED;
  } else if (dynamic_cast<const gloo::IoException*>(&error) != nullptr) {
    *code = EMBER_STATUS_UNAVAILABLE;
  } else {
    *code = EMBER_STATUS_INTERNAL;
  }
  std::string text = "gloo " + what + ": " + message;
  std::lock_guard lock(communicator.failure_lock);
  if (communicator.failure.empty()) communicator.failure = text;
  return text;
}

void fail_if_broken(Communicator& communicator, const std::string& what) {
  std::lock_guard lock(communicator.failure_lock);
  if (communicator.failure.empty()) return;
  sdk::fail(EMBER_STATUS_UNAVAILABLE,
            "gloo " + what + ": the communicator is unusable after an earlier failure: " + communicator.failure);
}

}  // namespace ember::gloo_plugin
