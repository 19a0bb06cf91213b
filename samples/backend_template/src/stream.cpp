#include "stream.h"

namespace emu {

namespace sdk = ember::sdk;

Stream::Stream() : worker_([this] { run_worker(); }) {}

Stream::~Stream() {
  {
    std::unique_lock lock(mutex_);
    work_done_.wait(lock, [&] { return queue_.empty() && !busy_; });
    stopping_ = true;
  }
  work_available_.notify_all();
  worker_.join();
}

void Stream::enqueue(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(task));
  }
  work_available_.notify_one();
}

void Stream::synchronize() {
  std::unique_lock lock(mutex_);
  work_done_.wait(lock, [&] { return queue_.empty() && !busy_; });
  raise_locked(lock);
}

void Stream::raise_pending_error() {
  std::unique_lock lock(mutex_);
  raise_locked(lock);
}

void Stream::raise_locked(std::unique_lock<std::mutex>& lock) {
  if (!error_) return;
  const sdk::Error error = *error_;
  error_.reset();
  lock.unlock();
  throw error;
}

void Stream::run_worker() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_available_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    if (error_) {  // sticky: skip work until the error is reported
      if (queue_.empty()) work_done_.notify_all();
      continue;
    }
    busy_ = true;
    lock.unlock();
    std::optional<sdk::Error> failure;
    try {
      task();
    } catch (const sdk::Error& e) {
      failure = e;
    } catch (const std::exception& e) {
      failure = sdk::Error(EMBER_STATUS_INTERNAL, e.what());
    } catch (...) {
      failure = sdk::Error(EMBER_STATUS_INTERNAL, "unknown exception in device work");
    }
    lock.lock();
    busy_ = false;
    if (failure && !error_) error_ = std::move(failure);
    if (queue_.empty()) work_done_.notify_all();
  }
}

void Event::record(Stream& stream) {
  uint64_t ticket;
  {
    std::lock_guard lock(mutex_);
    ticket = ++recorded_;
  }
  stream.enqueue([this, ticket] {
    std::lock_guard lock(mutex_);
    if (ticket > completed_) completed_ = ticket;
    reached_.notify_all();
  });
}

void Event::wait_on(Stream& stream) {
  uint64_t ticket;
  {
    std::lock_guard lock(mutex_);
    ticket = recorded_;
  }
  stream.enqueue([this, ticket] {
    std::unique_lock lock(mutex_);
    reached_.wait(lock, [&] { return completed_ >= ticket; });
  });
}

void Event::synchronize() {
  std::unique_lock lock(mutex_);
  const uint64_t ticket = recorded_;
  reached_.wait(lock, [&] { return completed_ >= ticket; });
}

}  // namespace emu
