// An asynchronous, in-order queue of device work run by its own worker
// thread, like a CUDA stream. A task that fails leaves a sticky error: the
// stream skips later work and the next call that waits on it, or launches
// on it, reports the error.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include <ember/ember_plugin.hpp>

namespace emu {

class Stream {
 public:
  Stream();
  ~Stream();  // finishes the queued work first
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  void enqueue(std::function<void()> task);
  // Waits until every task enqueued so far ran; throws a pending error.
  void synchronize();
  // Throws (and clears) a pending error without waiting.
  void raise_pending_error();

 private:
  void run_worker();
  void raise_locked(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable work_available_;
  std::condition_variable work_done_;
  std::deque<std::function<void()>> queue_;
  bool busy_ = false;
  bool stopping_ = false;
  std::optional<ember::sdk::Error> error_;
  std::thread worker_;
};

// A point in a stream's work, like a CUDA event.
class Event {
 public:
  void record(Stream& stream);
  // Makes `stream` wait (without blocking the host) for the last record.
  void wait_on(Stream& stream);
  // Blocks the host until the last record is reached.
  void synchronize();

 private:
  std::mutex mutex_;
  std::condition_variable reached_;
  uint64_t recorded_ = 0;
  uint64_t completed_ = 0;
};

}  // namespace emu
