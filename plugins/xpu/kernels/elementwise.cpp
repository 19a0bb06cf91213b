// Elementwise ops: unary, binary, where and copy (with conversion).
#include <deque>
#include <string_view>

#include "../devices.h"
#include "elementwise_ops.h"
#include "kernels.h"

namespace ember::xpu {

namespace {

// What a registered elementwise kernel needs: which OpenCL kernel runs it
// and the op code that kernel switches on.
struct OpKernel {
  const ElementwiseOp* op;
  const char* kernel;
  cl_int code;
};

// Integer division and pow report errors through an error word; the table's
// expressions say which do by passing it on.
bool may_fail(const OpKernel& k, ember_dtype dtype) {
  const char* expression = expression_for(*k.op, dtype_info(dtype));
  return std::string_view(expression).find("error") != std::string_view::npos;
}

void unary_kernel(const ember_kernel_call& call, void* data) {
  const auto& k = *static_cast<const OpKernel*>(data);
  const DLTensor& out = call.outputs[0];
  const DLTensor& x = call.inputs[0];
  const Geometry g = make_geometry(shape_of(out), {operand_of(out), operand_of(x)});
  if (g.numel == 0) return;
  Launch(call, sdk::dtype_of(x), k.kernel)
      .buffer(buffer_of(out))
      .buffer(buffer_of(x))
      .value(k.code)
      .value(g)
      .run(g.numel);
}

void binary_kernel(const ember_kernel_call& call, void* data) {
  const auto& k = *static_cast<const OpKernel*>(data);
  const DLTensor& out = call.outputs[0];
  const DLTensor& x = call.inputs[0];
  const DLTensor& y = call.inputs[1];
  const Geometry g = make_geometry(shape_of(out), {operand_of(out), operand_of(x), operand_of(y)});
  if (g.numel == 0) return;
  const ember_dtype dtype = sdk::dtype_of(x);
  Launch launch(call, dtype, k.kernel);
  launch.buffer(buffer_of(out)).buffer(buffer_of(x)).buffer(buffer_of(y)).value(k.code);
  if (std::string_view(k.kernel) == "binary_bool") {
    launch.value(g).run(g.numel);
    return;
  }
  if (!may_fail(k, dtype)) {
    launch.buffer(nullptr).value(g).run(g.numel);
    return;
  }
  const ErrorWord error(call);
  launch.buffer(error.buffer()).value(g).run(g.numel);
  error.raise_if_set(launch.queue(), call.op_name);
}

void where_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  const DLTensor& condition = call.inputs[0];
  const DLTensor& a = call.inputs[1];
  const DLTensor& b = call.inputs[2];
  const Geometry g =
      make_geometry(shape_of(out), {operand_of(out), operand_of(condition), operand_of(a), operand_of(b)});
  if (g.numel == 0) return;
  Launch(call, sdk::dtype_of(a), "where_select")
      .buffer(buffer_of(out))
      .buffer(buffer_of(condition))
      .buffer(buffer_of(a))
      .buffer(buffer_of(b))
      .value(g)
      .run(g.numel);
}

void copy_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  enqueue_copy(call, call.inputs[0], buffer_of(out), sdk::dtype_of(out), operand_of(out));
}

void register_table(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes,
                    std::span<const ElementwiseOp> table, const char* kernel, ember_kernel_fn entry) {
  // Registered kernels keep pointers into this for the life of the plugin.
  static std::deque<OpKernel> op_kernels;
  for (const ElementwiseOp& op : table) {
    OpKernel& k = op_kernels.emplace_back(OpKernel{&op, kernel, op_code(table, op)});
    for (ember_dtype dtype : dtypes) {
      if (expression_for(op, dtype_info(dtype)) != nullptr) r.add(op.name, dtype, entry, &k);
    }
  }
}

}  // namespace

void enqueue_copy(const ember_kernel_call& call, const DLTensor& src, cl_mem dst_buffer, ember_dtype dst_dtype,
                  const Operand& dst) {
  if (!is_served(dst_dtype, Devices::instance().at(call.device_index).has_fp64)) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, std::string("xpu: copy cannot write ") + sdk::dtype_name(dst_dtype));
  }
  const Geometry g = make_geometry(shape_of(src), {dst, operand_of(src)});
  if (g.numel == 0) return;
  Launch(call, sdk::dtype_of(src), "copy_to")
      .buffer(dst_buffer)
      .value(cl_int{dst_dtype})
      .buffer(buffer_of(src))
      .value(g)
      .run(g.numel);
}

void register_elementwise_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes) {
  register_table(r, dtypes, unary_ops(), "unary", sdk::kernel_entry<&unary_kernel>);
  register_table(r, dtypes, unary_bool_ops(), "unary_bool", sdk::kernel_entry<&unary_kernel>);
  register_table(r, dtypes, binary_ops(), "binary", sdk::kernel_entry<&binary_kernel>);
  register_table(r, dtypes, binary_bool_ops(), "binary_bool", sdk::kernel_entry<&binary_kernel>);
  for (ember_dtype dtype : dtypes) {
    r.add("where", dtype, sdk::kernel_entry<&where_kernel>);
    r.add("copy", dtype, sdk::kernel_entry<&copy_kernel>);
  }
}

}  // namespace ember::xpu
