// What launch checks before a generated kernel runs: the launch matches
// the kernel's IR, and every element the kernel will touch lies in the
// DLTensor the core passed for that buffer (kernel-ir.md "Launching").
#ifndef EMBER_PLUGINS_CPU_CODEGEN_LAUNCH_CHECKS_H_
#define EMBER_PLUGINS_CPU_CODEGEN_LAUNCH_CHECKS_H_

#include <ember/ember_plugin.h>

#include <vector>

#include "cpp_dialect.h"

namespace ember::cpu_codegen {

// The buffers' element-0 pointers (data + byte_offset), in buffer order,
// once the launch passed every check; INVALID_ARGUMENT naming the buffer,
// instruction or parameter otherwise.
std::vector<void*> check_launch(const Kernel& kernel, const ember_codegen_launch_args& args);

}  // namespace ember::cpu_codegen

#endif  // EMBER_PLUGINS_CPU_CODEGEN_LAUNCH_CHECKS_H_
