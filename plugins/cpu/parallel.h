// parallel_for for kernels: chunks of a range claimed by the calling thread
// and a pool of workers (Note [Work-claiming parallel loop] in parallel.cpp).
#ifndef EMBER_PLUGINS_CPU_PARALLEL_H_
#define EMBER_PLUGINS_CPU_PARALLEL_H_

#include <cstdint>
#include <type_traits>

#include "num_threads.h"

namespace ember::cpu {

// Non-owning reference to a callable `void(int64_t begin, int64_t end)`.
class RangeFn {
 public:
  template <class Fn>
  explicit RangeFn(Fn& fn)
      : object_(&fn), call_([](const void* object, int64_t begin, int64_t end) {
          (*static_cast<Fn*>(const_cast<void*>(object)))(begin, end);
        }) {}
  void operator()(int64_t begin, int64_t end) const { call_(object_, begin, end); }

 private:
  const void* object_;
  void (*call_)(const void*, int64_t, int64_t);
};

void parallel_run(int64_t begin, int64_t end, int64_t grain, RangeFn fn);

// The name workers started from now on carry (pthread_setname_np: at most
// 15 characters; "ember-cpu" until set), so that each plugin linking this
// pool names its own threads. `name` must outlive the pool.
void set_worker_name(const char* name);

// Starts or stops workers so that the pool, once it exists, matches
// num_threads() now rather than at the next parallel_for (which would do it
// too); waits for a parallel_for that is running.
void resize_thread_pool();

// Calls fn(b, e) on disjoint chunks covering [begin, end), about `grain`
// long or longer, on up to num_threads() threads; which thread runs which
// chunk, and so the results, must not matter to fn. A range of at most
// `grain` runs inline on the calling thread: no allocation, lock or wake-up,
// so tiny tensors pay only for the comparison. So does a call from inside a
// chunk, and one made while another thread's parallel_for holds the pool.
// An exception thrown by fn is rethrown here once every chunk has run.
template <class Fn>
void parallel_for(int64_t begin, int64_t end, int64_t grain, Fn&& fn) {
  if (end - begin <= grain) {
    if (begin < end) fn(begin, end);
    return;
  }
  parallel_run(begin, end, grain, RangeFn(fn));
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_PARALLEL_H_
