// profiling.hpp -- the profiling extension (ABI 1.5) from four throwing
// functions: `sdk::profiling_extension<start, kernel_begin, kernel_end,
// stop>()`, each behind the fence, and the pieces a timer needs:
// `steady_now_ns()` (the host clock activities are stated in) and
// `kernel_activity()`. Host code only.
#ifndef EMBER_SDK_PROFILING_HPP_
#define EMBER_SDK_PROFILING_HPP_

#include <ember/ember_plugin.h>

#include <chrono>
#include <cstdint>

#include <ember/sdk/device_table.hpp>

namespace ember::sdk {

// Nanoseconds of the host's steady clock, CLOCK_MONOTONIC on Linux.
inline int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// An activity record; `name` is borrowed (NULL: the op's name).
inline ember_kernel_activity kernel_activity(uint64_t correlation_id, int32_t device_index, const char* name,
                                             int64_t start_ns, int64_t end_ns) {
  ember_kernel_activity a{};
  a.struct_size = sizeof a;
  a.correlation_id = correlation_id;
  a.device_index = device_index;
  a.name = name;
  a.start_ns = start_ns;
  a.end_ns = end_ns;
  return a;
}

// The record of a timer whose functions throw sdk::Error on failure:
//   void start();
//   void kernel_begin(int32_t device_index, ember_stream_t stream, uint64_t correlation_id);
//   void kernel_end(int32_t device_index, ember_stream_t stream, uint64_t correlation_id);
//   void stop(ember_activity_sink sink, void* context);
template <auto Start, auto KernelBegin, auto KernelEnd, auto Stop>
const ember_profiling_extension& profiling_extension() {
  static const ember_profiling_extension extension = [] {
    ember_profiling_extension e{};
    e.header = {sizeof e, EMBER_EXTENSION_PROFILING, nullptr};
    e.start = fenced<Start>;
    e.kernel_begin = fenced<KernelBegin>;
    e.kernel_end = fenced<KernelEnd>;
    e.stop = fenced<Stop>;
    return e;
  }();
  return extension;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_PROFILING_HPP_
