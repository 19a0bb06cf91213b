#pragma once
// One rank's Gloo context for one process group, connected through the
// core's store.
#include <ember/ember_plugin.hpp>

#include <gloo/rendezvous/context.h>
#include <gloo/transport/device.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

namespace ember::gloo_plugin {

struct Communicator {
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::shared_ptr<gloo::transport::Device> device;
  int rank = 0;
  int world_size = 1;
  std::chrono::milliseconds timeout{0};
  // Set by the first failure or by abort: Gloo's pairs are unusable after
  // either, so every later call fails at once with the first reason.
  std::mutex failure_lock;
  std::string failure;
  std::atomic<bool> aborted{false};
};

Communicator* create_communicator(const ember_communicator_config& config);
void abort_communicator(Communicator& communicator);

// Runs `body` (a Gloo call) and turns what Gloo throws into an sdk::Error:
// a timeout is DEADLINE_EXCEEDED, a closed connection UNAVAILABLE.
template <class Body>
void run_guarded(Communicator& communicator, const std::string& what, Body&& body);

std::string describe_failure(Communicator& communicator, const std::string& what, const std::exception& error,
                             ember_status_code* code /* out */);
void fail_if_broken(Communicator& communicator, const std::string& what);

template <class Body>
void run_guarded(Communicator& communicator, const std::string& what, Body&& body) {
  fail_if_broken(communicator, what);
  ember_status_code code = EMBER_STATUS_INTERNAL;
  std::string message;
  try {
    body();
    return;
  } catch (const sdk::Error&) {
    throw;
  } catch (const std::exception& e) {
    message = describe_failure(communicator, what, e, &code);
  }
  sdk::fail(code, message);
}

}  // namespace ember::gloo_plugin
