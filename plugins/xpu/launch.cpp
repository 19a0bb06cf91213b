#include "launch.h"

#include <algorithm>

#include <ember/ember_plugin.hpp>

#include "buffer.h"
#include "devices.h"
#include "dtypes.h"
#include "profiling.h"
#include "program_cache.h"
#include "stream.h"

namespace ember::xpu {

namespace {

constexpr size_t kGroupSize = 64;

// The error codes of cl/common.cl.
enum KernelError { kDivisionByZero = 1, kNegativePower = 2, kIndexOutOfRange = 3 };

}  // namespace

Operand operand_of(const DLTensor& t) {
  return Operand{std::vector<int64_t>(t.strides, t.strides + t.ndim), element_offset(t)};
}

Geometry make_geometry(const std::vector<int64_t>& shape, std::initializer_list<Operand> operands) {
  Geometry g{};
  g.numel = 1;
  for (int64_t size : shape) g.numel *= size;
  const int num_operands = static_cast<int>(operands.size());
  // Dimensions from innermost outwards, size-1 ones dropped, merged where
  // every operand's outer stride equals its inner stride times the inner size.
  struct Dim {
    int64_t size;
    int64_t strides[kMaxOperands];
  };
  std::vector<Dim> dims;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    Dim dim{shape[d], {}};
    int k = 0;
    for (const Operand& op : operands) dim.strides[k++] = op.strides[static_cast<size_t>(d)];
    if (!dims.empty()) {
      Dim& inner = dims.back();
      bool mergeable = true;
      for (k = 0; k < num_operands; ++k) mergeable &= dim.strides[k] == inner.strides[k] * inner.size;
      if (mergeable) {
        inner.size *= dim.size;
        continue;
      }
    }
    dims.push_back(dim);
  }
  if (dims.size() > static_cast<size_t>(kMaxGeometryDims)) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "xpu: a loop over " + std::to_string(dims.size()) +
                                              " dimensions that cannot be merged (at most " +
                                              std::to_string(kMaxGeometryDims) + ")");
  }
  g.ndim = static_cast<cl_int>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = dims.size() - 1 - i;  // back to outermost first
    g.shape[d] = dims[i].size;
    for (int k = 0; k < num_operands; ++k) g.strides[k][d] = dims[i].strides[k];
  }
  int k = 0;
  for (const Operand& op : operands) g.first[k++] = op.first;
  return g;
}

Launch::Launch(const ember_kernel_call& call, ember_dtype dtype, const char* kernel_name)
    : dtype_(dtype),
      device_(Devices::instance().at(call.device_index).id),
      device_has_fp64_(Devices::instance().at(call.device_index).has_fp64),
      queue_(queue_of(call.device_index, call.stream)),
      name_(kernel_name) {
  cl_int error = CL_SUCCESS;
  kernel_ = clCreateKernel(program_for(call.device_index, dtype), kernel_name, &error);
  check_cl(error, "clCreateKernel(" + name_ + ")");
}

Launch::~Launch() { clReleaseKernel(kernel_); }

Launch& Launch::buffer(cl_mem buffer) {
  set_arg(sizeof buffer, &buffer);
  return *this;
}

Launch& Launch::accumulator(double floating, int64_t integer) {
  if (!dtype_info(dtype_).is_floating) return value(static_cast<cl_ulong>(integer));
  if (device_has_fp64_) return value(cl_double{floating});
  return value(static_cast<cl_float>(floating));
}

void Launch::set_arg(size_t size, const void* value) {
  check_cl(clSetKernelArg(kernel_, next_arg_, size, value), "clSetKernelArg(" + name_ + ", " +
                                                                std::to_string(next_arg_) + ")");
  ++next_arg_;
}

// A fixed group size: GPUs want a multiple of their SIMD width, and PoCL
// compiles a kernel once per group size it meets, which a driver-chosen size
// (a divisor of each launch's global size) would multiply.
void Launch::run(int64_t work_items) {
  if (work_items <= 0) return;
  size_t kernel_limit = 0;
  check_cl(clGetKernelWorkGroupInfo(kernel_, device_, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_limit, &kernel_limit,
                                    nullptr),
           "clGetKernelWorkGroupInfo(" + name_ + ")");
  const size_t local = std::min<size_t>(kGroupSize, std::max<size_t>(kernel_limit, 1));
  const size_t global = (static_cast<size_t>(work_items) + local - 1) / local * local;
  CommandTiming timing;
  check_cl(clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, &local, 0, nullptr, timing.event()),
           "clEnqueueNDRangeKernel(" + name_ + ")");
  timing.keep(name_);
}

ErrorWord::ErrorWord(const ember_kernel_call& call) {
  const Device& device = Devices::instance().at(call.device_index);
  cl_int zero = 0;
  cl_int error = CL_SUCCESS;
  buffer_ = clCreateBuffer(device.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &error);
  check_cl(error, "clCreateBuffer for a kernel's error word");
}

ErrorWord::~ErrorWord() { clReleaseMemObject(buffer_); }

void ErrorWord::raise_if_set(cl_command_queue queue, const std::string& op) const {
  cl_int code = 0;
  check_cl(clEnqueueReadBuffer(queue, buffer_, CL_TRUE, 0, sizeof code, &code, 0, nullptr, nullptr),
           "clEnqueueReadBuffer of a kernel's error word");
  switch (code) {
    case 0: return;
    case kDivisionByZero: sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "integer division by zero");
    case kNegativePower:
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "pow: integers to negative integer powers are not allowed");
    case kIndexOutOfRange: sdk::fail(EMBER_STATUS_OUT_OF_RANGE, op + ": index out of range");
    default: sdk::fail(EMBER_STATUS_INTERNAL, op + ": kernel reported error " + std::to_string(code));
  }
}

}  // namespace ember::xpu
