// A device whose kernels run after their call returns, on a worker thread
// that takes kLagMs longer than the host, with the profiling extension
// (ABI 1.5) timing that work: the tests of device time
// (tests/cpp/test_device_time.cpp) see device activities that the host's
// times cannot explain. One device of host memory; kernel: neg (float32).
// Built three ways (LAGGING_DEVICE names the device type):
//   (plain)                 a timer that works
//   LAGGING_FAILING_TIMER   start() fails: ops run, no device time
//   LAGGING_NULL_TIMER      kernel_end is NULL: the plugin is quarantined
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <ember/ember_plugin.hpp>
#include <ember/sdk/profiling.hpp>

namespace {

using namespace ember;

constexpr int kLagMs = 20;

// The device: one in-order queue run by a worker thread, which records when
// each timed job began and ended.
class Queue {
 public:
  Queue() : worker_([this] { run(); }) {}
  ~Queue() {
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    changed_.notify_all();
    worker_.join();
  }

  void push(std::function<void()> job, uint64_t correlation) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back({std::move(job), correlation});
    }
    changed_.notify_all();
  }

  void drain() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return jobs_.empty() && !busy_; });
  }

  // Each timed job: (correlation, start, end); taken away by the caller.
  std::vector<ember_kernel_activity> take_activities() {
    std::lock_guard lock(mutex_);
    return std::exchange(activities_, {});
  }

 private:
  struct Job {
    std::function<void()> work;
    uint64_t correlation;
  };

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return closing_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      busy_ = true;
      lock.unlock();
      const int64_t start = sdk::steady_now_ns();
      std::this_thread::sleep_for(std::chrono::milliseconds(kLagMs));
      job.work();
      const int64_t end = sdk::steady_now_ns();
      lock.lock();
      if (job.correlation != 0) {
        activities_.push_back(sdk::kernel_activity(job.correlation, 0, "lagging_neg_kernel", start, end));
      }
      busy_ = false;
      changed_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  std::vector<ember_kernel_activity> activities_;
  bool busy_ = false;
  bool closing_ = false;
  std::thread worker_;
};

Queue& queue() {
  static Queue* q = new Queue;  // never joined at exit: the process ends it
  return *q;
}

// The correlation id of the kernel call this thread is in, 0 outside one.
thread_local uint64_t t_timed_call = 0;

void device_count(int32_t* count) { *count = 1; }

void device_properties(int32_t, ember_device_properties* props) { props->name = "lagging device"; }

void allocate(int32_t, size_t num_bytes, size_t alignment, void** ptr) {
  *ptr = nullptr;
  if (num_bytes == 0) return;
  if (posix_memalign(ptr, alignment, num_bytes) != 0) sdk::fail(EMBER_STATUS_OUT_OF_MEMORY, "out of host memory");
}

void deallocate(int32_t, void* ptr) {
  queue().drain();  // the queued work may still read it
  std::free(ptr);
}

void copy(const ember_copy_args* args) {
  queue().drain();
  if (args->num_bytes != 0) {
    std::memmove(static_cast<char*>(args->dst) + args->dst_offset,
                 static_cast<const char*>(args->src) + args->src_offset, args->num_bytes);
  }
}

void synchronize(int32_t) { queue().drain(); }

const ember_device_api* device_api() {
  static const ember_device_api api = [] {
    ember_device_api a = sdk::device_table(LAGGING_DEVICE, kDLExtDev);
    a.device_count = sdk::fenced<device_count>;
    a.device_properties = sdk::fenced<device_properties>;
    a.allocate = sdk::fenced<allocate>;
    a.deallocate = sdk::fenced<deallocate>;
    a.copy = sdk::fenced<copy>;
    a.synchronize = sdk::fenced<synchronize>;
    return a;
  }();
  return &api;
}

void neg(const ember_kernel_call& call) {
  const DLTensor& in = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  if (!sdk::is_contiguous(in) || !sdk::is_contiguous(out)) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "neg on the lagging device takes contiguous tensors");
  }
  const auto* source = reinterpret_cast<const float*>(sdk::data_ptr(in));
  auto* target = reinterpret_cast<float*>(sdk::data_ptr(out));
  const int64_t n = sdk::numel(out);
  queue().push([=] { for (int64_t i = 0; i < n; ++i) target[i] = -source[i]; }, t_timed_call);
}

void register_kernels(ember_registrar* registrar) {
  sdk::Registrar(registrar).add("neg", EMBER_DTYPE_FLOAT32, sdk::kernel_entry<neg>);
}

void start() {
#ifdef LAGGING_FAILING_TIMER
  sdk::fail(EMBER_STATUS_UNAVAILABLE, "the lagging device's timer is broken");
#endif
  queue().drain();
  (void)queue().take_activities();
}

void kernel_begin(int32_t, ember_stream_t, uint64_t correlation_id) { t_timed_call = correlation_id; }

void kernel_end(int32_t, ember_stream_t, uint64_t) { t_timed_call = 0; }

void stop(ember_activity_sink sink, void* context) {
  queue().drain();
  for (const ember_kernel_activity& a : queue().take_activities()) sink(context, &a);
}

const ember_profiling_extension& profiling() {
#ifdef LAGGING_NULL_TIMER
  static const ember_profiling_extension malformed = [] {
    ember_profiling_extension e = sdk::profiling_extension<start, kernel_begin, kernel_end, stop>();
    e.kernel_end = nullptr;
    return e;
  }();
  return malformed;
#else
  return sdk::profiling_extension<start, kernel_begin, kernel_end, stop>();
#endif
}

ember_plugin describe_plugin() {
  ember_plugin plugin{};
  plugin.name = LAGGING_DEVICE;
  plugin.version = "0.1";
  plugin.device = device_api();
  plugin.register_kernels = sdk::fenced<register_kernels>;
  plugin.extension = &profiling().header;
  return plugin;
}

}  // namespace

EMBER_PLUGIN_ENTRY(describe_plugin)
