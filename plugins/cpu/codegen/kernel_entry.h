// kernel_entry.h -- the C interface between the cpu_codegen plugin and the
// shared objects it generates: a kernel's entry point and the parallel loop
// the plugin hands it at launch (Note [Kernel parallel loop] in
// loaded_kernel.cpp). The plugin includes it and CMakeLists.txt pastes its
// text into every kernel's source, so both sides compile one definition;
// a change to it changes the blob format version (blob.cpp).
#ifndef EMBER_PLUGINS_CPU_CODEGEN_KERNEL_ENTRY_H_
#define EMBER_PLUGINS_CPU_CODEGEN_KERNEL_ENTRY_H_

#include <stdint.h>

extern "C" {

typedef void (*ek_range_body)(void* body_data, int64_t begin, int64_t end);

struct ek_parallel {
  // Calls body(body_data, b, e) on disjoint ranges covering [0, count), on
  // the calling thread and the plugin's pool at once, and returns when all
  // have run. Called only from the thread that called the entry point.
  void (*run)(void* context, int64_t count, void* body_data, ek_range_body body);
  void* context;
  // The most threads `run` uses, the calling thread included (>= 1).
  int64_t threads;
};

// extern "C" unsigned <symbol>(buffers, params, parallel): runs the kernel
// on the buffers' element-0 pointers and returns its fault bits.
typedef unsigned (*ek_kernel_entry)(void* const* buffers, const int64_t* params, const struct ek_parallel* parallel);

}  // extern "C"

#endif  // EMBER_PLUGINS_CPU_CODEGEN_KERNEL_ENTRY_H_
