// Elementwise binary ops (ops.md "Elementwise binary"). Inputs arrive
// broadcast and converted to the dispatch dtype.
#include "elementwise_ops.cuh"
#include "kernels.h"
#include "map.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

template <class Op>
struct BinaryKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    launch_map<T, T, T>(context, call.outputs[0], {&call.inputs[0], &call.inputs[1]}, Op{});
  }
};

template <class Op>
struct PredicateKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    launch_map<bool, T, T>(context, call.outputs[0], {&call.inputs[0], &call.inputs[1]}, Op{});
  }
};

// Integer floor_divide, remainder and pow can meet invalid elements, found
// on the device; the call then fails once the stream has run.
template <class Op>
struct ReportingKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    if constexpr (is_integer_v<T>) {
      const ErrorFlag error(context);
      Op op{};
      op.error = error.device_word();
      launch_map<T, T, T>(context, call.outputs[0], {&call.inputs[0], &call.inputs[1]}, op);
      error.raise_if_set();
    } else {
      launch_map<T, T, T>(context, call.outputs[0], {&call.inputs[0], &call.inputs[1]}, Op{});
    }
  }
};

using AddMulTypes = sdk::AllTypes;  // bool: logical or / and

}  // namespace

void register_binary_kernels(const sdk::Registrar& r) {
  using sdk::AllTypes;
  using sdk::IntegralTypes;
  using sdk::NumericTypes;
  add_kernels<BinaryKernel, ops::Add>(r, "add", AddMulTypes{});
  add_kernels<BinaryKernel, ops::Sub>(r, "sub", NumericTypes{});
  add_kernels<BinaryKernel, ops::Mul>(r, "mul", AddMulTypes{});
  add_kernels<BinaryKernel, ops::Div>(r, "div", sdk::FloatingTypes{});
  add_kernels<ReportingKernel, ops::FloorDivide>(r, "floor_divide", NumericTypes{});
  add_kernels<ReportingKernel, ops::Remainder>(r, "remainder", NumericTypes{});
  add_kernels<ReportingKernel, ops::Pow>(r, "pow", NumericTypes{});
  add_kernels<BinaryKernel, ops::Maximum>(r, "maximum", AllTypes{});
  add_kernels<BinaryKernel, ops::Atan2>(r, "atan2", sdk::FloatingTypes{});
  add_kernels<BinaryKernel, ops::Minimum>(r, "minimum", AllTypes{});
  add_kernels<BinaryKernel, ops::BitwiseAnd>(r, "bitwise_and", IntegralTypes{});
  add_kernels<BinaryKernel, ops::BitwiseOr>(r, "bitwise_or", IntegralTypes{});
  add_kernels<BinaryKernel, ops::BitwiseXor>(r, "bitwise_xor", IntegralTypes{});
  add_kernels<PredicateKernel, ops::LogicalAnd>(r, "logical_and", AllTypes{});
  add_kernels<PredicateKernel, ops::LogicalOr>(r, "logical_or", AllTypes{});
  add_kernels<PredicateKernel, ops::LogicalXor>(r, "logical_xor", AllTypes{});
  add_kernels<PredicateKernel, ops::Eq>(r, "eq", AllTypes{});
  add_kernels<PredicateKernel, ops::Ne>(r, "ne", AllTypes{});
  add_kernels<PredicateKernel, ops::Lt>(r, "lt", AllTypes{});
  add_kernels<PredicateKernel, ops::Le>(r, "le", AllTypes{});
  add_kernels<PredicateKernel, ops::Gt>(r, "gt", AllTypes{});
  add_kernels<PredicateKernel, ops::Ge>(r, "ge", AllTypes{});
}

}  // namespace ember::gpu
