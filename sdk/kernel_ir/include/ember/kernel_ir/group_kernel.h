// The kernel of a GPU-style generator (OpenCL C, CUDA C++): one thread per
// outer point of a pointwise kernel, one group of kGroupSize threads per
// outer point of any other (Note [Group kernels] in group_kernel.cpp),
// written over a GroupDialect.
#ifndef EMBER_KERNEL_IR_GROUP_KERNEL_H_
#define EMBER_KERNEL_IR_GROUP_KERNEL_H_

#include <ember/kernel_ir/scalar_code.h>

#include <cstdint>
#include <string>

namespace ember::kernel_ir {

// Threads per group of every group kernel, fixed so that a reduction's
// order depends on the extents alone.
inline constexpr int kGroupSize = 64;

// What a GPU language adds to the scalar dialect: the kernel's head,
// thread indices, group-shared memory and its barrier, and the atomic or
// a thread reports its faults with.
class GroupDialect : public Dialect {
 public:
  // The function head of kernel `ek_kernel` (entry-point qualifiers, a
  // fixed group of kGroupSize threads) over `parameters`.
  virtual std::string kernel_head(const std::string& parameters) const = 0;
  // A parameter: buffer `name` of `storage_type` elements, and the fault
  // word `name` (an unsigned int the launch zeroes and reads back).
  virtual std::string buffer_parameter(const std::string& storage_type, bool input, const std::string& name) const = 0;
  virtual std::string fault_parameter(const std::string& name) const = 0;
  // Expressions: the thread's global index, its group's index (both as
  // long) and its index in the group (an int).
  virtual std::string global_index() const = 0;
  virtual std::string group_index() const = 0;
  virtual std::string local_index() const = 0;
  // Statements: an array shared by the group, declared at the kernel's
  // outermost scope; a barrier for shared memory; fault bits `value`
  // or-ed into the fault word `word`.
  virtual std::string shared_array(const std::string& type, const std::string& name, int size) const = 0;
  virtual std::string barrier() const = 0;
  virtual std::string atomic_or(const std::string& word, const std::string& value) const = 0;

  // Neighbouring points a thread of a float32 pointwise kernel computes at
  // once in the language's vector type (Note [Vector pointwise kernels]);
  // 1, the default, never. A dialect that returns more spells its vectors
  // below and defines ek_maximum and ek_minimum for them.
  virtual int pointwise_vector_width() const { return 1; }
  virtual std::string vector_type() const { return ""; }
  // The vector of `width` floats from element `index` of `buffer` on, the
  // statement storing vector `value` there, and a float repeated.
  virtual std::string vector_load(const std::string&, const std::string&) const { return ""; }
  virtual std::string vector_store(const std::string&, const std::string&, const std::string&) const { return ""; }
  virtual std::string vector_splat(const std::string&) const { return ""; }
};

struct GroupKernel {
  std::string text;  // the kernel function; the caller adds its prelude
  // One group per outer point (kernels with a loop over extents):
  // launched as points * kGroupSize threads; otherwise one thread per
  // point, points rounded up to whole groups.
  bool group_per_point = false;
  // The kernel's last parameter is the fault word.
  bool can_fault = false;
  // It computes in double.
  bool uses_fp64 = false;
  // Outer points per thread of a pointwise kernel.
  int points_per_thread = 1;
};

GroupKernel generate_group_kernel(const Kernel& kernel, const GroupDialect& dialect);

// The groups of kGroupSize threads to launch `kernel` over `points` outer points.
int64_t groups_to_launch(const GroupKernel& kernel, int64_t points);

}  // namespace ember::kernel_ir

#endif  // EMBER_KERNEL_IR_GROUP_KERNEL_H_
