// Launching the plugin's OpenCL kernels: the loop geometry a kernel walks,
// kernel arguments, and the error word kernels report through.
#pragma once

#include <ember/ember_plugin.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "opencl.h"

namespace ember::xpu {

inline constexpr int kMaxGeometryDims = 8;
inline constexpr int kMaxOperands = 4;

// Host twin of `Geometry` in cl/common.cl (Note [Geometry]).
struct Geometry {
  cl_long numel;
  cl_long shape[kMaxGeometryDims];
  cl_long strides[kMaxOperands][kMaxGeometryDims];
  cl_long first[kMaxOperands];
  cl_int ndim;
  cl_int unused;
};

// One tensor's part in a loop: its strides (one per loop dimension, in
// elements) and the offset of its first element.
struct Operand {
  std::vector<int64_t> strides;
  int64_t first = 0;
};

// Operand of a DLTensor as it is.
Operand operand_of(const DLTensor& t);

// Drops size-1 dimensions and merges dimensions every operand walks
// contiguously; throws UNIMPLEMENTED if more than kMaxGeometryDims remain.
Geometry make_geometry(const std::vector<int64_t>& shape, std::initializer_list<Operand> operands);

// One kernel of the program of `dtype`, its arguments set in order, run on
// the queue of (device, stream).
class Launch {
 public:
  Launch(const ember_kernel_call& call, ember_dtype dtype, const char* kernel_name);
  ~Launch();
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;

  Launch& buffer(cl_mem buffer);
  template <class T>
  Launch& value(const T& v) {
    set_arg(sizeof v, &v);
    return *this;
  }
  // A scalar in the program's accumulation type ACC (program_source.cpp):
  // `floating` as double or float for floating dtypes, `integer`'s
  // two's-complement bits for the others.
  Launch& accumulator(double floating, int64_t integer);
  // Runs `work_items` work items (none when 0).
  void run(int64_t work_items);
  cl_command_queue queue() const { return queue_; }

 private:
  void set_arg(size_t size, const void* value);
  ember_dtype dtype_;
  cl_device_id device_;
  bool device_has_fp64_;
  cl_kernel kernel_ = nullptr;
  cl_command_queue queue_ = nullptr;
  std::string name_;
  cl_uint next_arg_ = 0;
};

// A zeroed device word a kernel sets to an error code (cl/common.cl); read()
// waits for the queue and throws the status that code stands for.
class ErrorWord {
 public:
  explicit ErrorWord(const ember_kernel_call& call);
  ~ErrorWord();
  ErrorWord(const ErrorWord&) = delete;
  ErrorWord& operator=(const ErrorWord&) = delete;

  cl_mem buffer() const { return buffer_; }
  void raise_if_set(cl_command_queue queue, const std::string& op) const;

 private:
  cl_mem buffer_ = nullptr;
};

}  // namespace ember::xpu
