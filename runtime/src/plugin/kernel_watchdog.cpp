#include "plugin/kernel_watchdog.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/logging.h"
#include "ember/error.h"
#include "ember/plugins.h"

namespace ember::plugin {

// Note [Kernel watchdog]
// A kernel that never returns would hang its caller for good. With a
// timeout set (ember::set_kernel_timeout, ember.set_kernel_timeout,
// EMBER_KERNEL_TIMEOUT_MS), each kernel call runs on a helper thread that
// belongs to the calling thread, and the caller waits at most the timeout.
// A call past it is an error naming the op, device, plugin and timeout, and
// the plugin is marked hung: its later kernel calls fail at once with the
// reason, while every other plugin keeps working. The hung call cannot be
// stopped (no thread can be killed safely), so it keeps its helper, which
// owns a copy of the call and the tensors it reads and writes: they stay
// allocated, and the kernel never writes into memory reused by others. The
// caller's next call gets a new helper. A kernel's thread-locals live on its
// helper, which is the same thread call after call, so per-thread pools
// (OpenMP's) are made once. The cost is a hand-over and a wake-up per call,
// a few microseconds, which is why it is off unless asked for. A call
// already waiting for a hung plugin's serial lock when it hung waits on.
namespace {

std::chrono::milliseconds timeout_from_environment() {
  const char* text = std::getenv("EMBER_KERNEL_TIMEOUT_MS");
  if (text == nullptr || *text == '\0') return std::chrono::milliseconds(0);
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || value < 0) {
    log().warn("EMBER_KERNEL_TIMEOUT_MS='{}' is not a number of milliseconds >= 0; the kernel watchdog is off", text);
    return std::chrono::milliseconds(0);
  }
  return std::chrono::milliseconds(value);
}

std::atomic<int64_t>& timeout_ms() {
  static std::atomic<int64_t> value{timeout_from_environment().count()};
  return value;
}

struct Job {
  std::function<ember_status*()> work;
  bool done = false;                // with the helper's mutex
  ember_status* status = nullptr;   // the work's, until taken
  ~Job() { delete status; }
};

class Helper {
 public:
  Helper() = default;

  static std::shared_ptr<Helper> start() {
    auto helper = std::make_shared<Helper>();
    std::thread([helper] { helper->serve(); }).detach();
    return helper;
  }

  std::optional<ember_status*> run(std::function<ember_status*()> work, std::chrono::milliseconds timeout) {
    auto job = std::make_shared<Job>();
    job->work = std::move(work);
    std::unique_lock lock(mutex_);
    job_ = job;
    changed_.notify_all();
    if (!changed_.wait_for(lock, timeout, [&] { return job->done; })) return std::nullopt;
    return std::exchange(job->status, nullptr);
  }

  // The helper ends once its current job (if any) returns.
  void retire() {
    std::lock_guard lock(mutex_);
    retired_ = true;
    changed_.notify_all();
  }

 private:
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return retired_ || job_ != nullptr; });
      if (job_ == nullptr) return;
      const std::shared_ptr<Job> job = std::exchange(job_, nullptr);
      lock.unlock();
      ember_status* status = job->work();
      lock.lock();
      job->status = status;
      job->done = true;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<Job> job_;  // with mutex_
  bool retired_ = false;
};

// This thread's helper; retired when the thread ends.
struct HelperSlot {
  std::shared_ptr<Helper> helper;
  ~HelperSlot() {
    if (helper) helper->retire();
  }
};
thread_local HelperSlot t_helper;

}  // namespace

std::chrono::milliseconds kernel_timeout() {
  return std::chrono::milliseconds(timeout_ms().load(std::memory_order_relaxed));
}

std::optional<ember_status*> run_with_timeout(std::function<ember_status*()> job, std::chrono::milliseconds timeout) {
  if (!t_helper.helper) t_helper.helper = Helper::start();
  std::optional<ember_status*> status = t_helper.helper->run(std::move(job), timeout);
  if (!status) {
    // Left to the hung call; it ends if that call ever returns.
    t_helper.helper->retire();
    t_helper.helper.reset();
  }
  return status;
}

}  // namespace ember::plugin

namespace ember {

void set_kernel_timeout(std::chrono::milliseconds timeout) {
  if (timeout.count() < 0) {
    throw_error(ErrorKind::Value, "set_kernel_timeout: the timeout must be >= 0 ms (0 turns the watchdog off), got " +
                                      std::to_string(timeout.count()) + " ms");
  }
  plugin::timeout_ms().store(timeout.count(), std::memory_order_relaxed);
}

std::chrono::milliseconds kernel_timeout() { return plugin::kernel_timeout(); }

}  // namespace ember
