#include "profiler/thread_buffer.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace ember::profiler {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: threads may record during static destruction
  return *r;
}

std::shared_ptr<ThreadBuffer> make_thread_buffer() {
  auto buffer = std::make_shared<ThreadBuffer>();
  // The OS id, as PyTorch's trace shows, so the trace names threads the way
  // a debugger and perf do.
  buffer->thread_id = static_cast<uint64_t>(::syscall(SYS_gettid));
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.buffers.push_back(buffer);
  return buffer;
}

}  // namespace

void ThreadBuffer::sync(uint64_t current) {
  if (generation == current) return;
  generation = current;
  open = -1;
  // Swapped, not cleared: a long session's buffers go back to the heap
  // rather than stay with a thread that may not profile again.
  std::vector<RawEvent>().swap(events);
  std::vector<int64_t>().swap(shapes);
  std::deque<std::string>().swap(strings);
}

const char* ThreadBuffer::keep(std::string_view s) { return strings.emplace_back(s).c_str(); }

ThreadBuffer& this_thread_buffer() {
  thread_local std::shared_ptr<ThreadBuffer> buffer = make_thread_buffer();
  return *buffer;
}

std::vector<std::shared_ptr<ThreadBuffer>> all_thread_buffers() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::shared_ptr<ThreadBuffer>> result = r.buffers;
  // use_count 2: the registry and `result` hold it, the thread is gone.
  std::erase_if(r.buffers, [](const std::shared_ptr<ThreadBuffer>& b) { return b.use_count() == 2; });
  return result;
}

}  // namespace ember::profiler
