// EKIR -> C++: the source of one kernel, a shared object whose entry point
// (an ek_kernel_entry, kernel_entry.h) runs the kernel on the buffers'
// element-0 pointers, its outer points on the parallel loop it is handed,
// and returns its fault bits (Note [Kernel faults] in cpp_source.cpp).
#ifndef EMBER_PLUGINS_CPU_CODEGEN_CPP_SOURCE_H_
#define EMBER_PLUGINS_CPU_CODEGEN_CPP_SOURCE_H_

#include <set>
#include <string>

#include "cpp_dialect.h"

namespace ember::cpu_codegen {

struct CppSource {
  std::string text;
  std::string symbol;
  Requirements requirements;
};

// `simd_functions` are the C math functions the system's vector math
// library has SIMD variants of (system_compiler.h); the source declares
// those with `simd` so that GCC vectorises loops calling them.
CppSource generate_cpp_source(const Kernel& kernel, const std::set<std::string>& simd_functions);

}  // namespace ember::cpu_codegen

#endif  // EMBER_PLUGINS_CPU_CODEGEN_CPP_SOURCE_H_
