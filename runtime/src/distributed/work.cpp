#include "distributed/work.h"

#include "ember/error.h"

namespace ember::distributed {

bool Work::is_completed() const {
  std::lock_guard lock(lock_);
  return completed_;
}

bool Work::is_success() const {
  std::lock_guard lock(lock_);
  return completed_ && !error_;
}

std::exception_ptr Work::exception() const {
  std::lock_guard lock(lock_);
  return error_;
}

void Work::wait(Milliseconds timeout) const {
  std::unique_lock lock(lock_);
  if (timeout.count() <= 0) {
    done_.wait(lock, [&] { return completed_; });
  } else if (!done_.wait_for(lock, timeout, [&] { return completed_; })) {
    throw_error(ErrorKind::DistributedBackend,
                description_ + " did not complete within the wait's " + std::to_string(timeout.count()) + " ms");
  }
  if (error_) std::rethrow_exception(error_);
}

void Work::complete() {
  {
    std::lock_guard lock(lock_);
    completed_ = true;
  }
  done_.notify_all();
}

void Work::fail(std::exception_ptr error) {
  {
    std::lock_guard lock(lock_);
    error_ = std::move(error);
    completed_ = true;
  }
  done_.notify_all();
}

}  // namespace ember::distributed
