// What launch checks before a generated kernel runs: the launch matches
// the kernel's IR, and every element the kernel will touch lies in the
// DLTensor the core passed for that buffer (kernel-ir.md "Launching").
#ifndef EMBER_KERNEL_IR_LAUNCH_CHECKS_H_
#define EMBER_KERNEL_IR_LAUNCH_CHECKS_H_

#include <ember/ember_plugin.h>

#include <ember/kernel_ir/ekir.h>

namespace ember::kernel_ir {

// Where a generator's kernels run, for the checks and their messages.
struct LaunchTarget {
  const char* generator;     // "cpu_codegen", in every message
  DLDeviceType device_type;  // what every buffer's DLTensor must be on
  const char* device_name;   // "the CPU"
  // Whether DLTensor.data is an address (the CPU, CUDA), whose element 0
  // must then be aligned, or a handle (an OpenCL cl_mem), whose byte_offset
  // must be a whole number of elements.
  bool data_is_address;
};

// Returns once the launch passed every check; INVALID_ARGUMENT naming the
// generator and the buffer, instruction or parameter otherwise.
void check_launch(const Kernel& kernel, const ember_codegen_launch_args& args, const LaunchTarget& target);

}  // namespace ember::kernel_ir

#endif  // EMBER_KERNEL_IR_LAUNCH_CHECKS_H_
