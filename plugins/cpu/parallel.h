// parallel_for for kernels: OpenMP underneath (the runtime oneDNN already
// uses, so matmul and elementwise work share one set of threads).
#ifndef EMBER_PLUGINS_CPU_PARALLEL_H_
#define EMBER_PLUGINS_CPU_PARALLEL_H_

#include <cstdint>
#include <type_traits>

namespace ember::cpu {

// Threads a parallel_for may use: EMBER_NUM_THREADS if set to a positive
// integer, else std::thread::hardware_concurrency().
int num_threads();

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

// Calls fn(b, e) on disjoint chunks covering [begin, end), each at least
// `grain` long (except when the range is shorter). A range of at most
// `grain` runs inline on the calling thread: no allocation, lock or wake-up,
// so tiny tensors pay only for the comparison. Calls from inside a parallel
// region also run inline. An exception thrown by fn is rethrown here.
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
