// Elementwise unary ops (ops.md "Elementwise unary").
#include "elementwise_ops.cuh"
#include "kernels.h"
#include "map.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

template <class Op>
struct UnaryKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    launch_map<T, T>(context, call.outputs[0], {&call.inputs[0]}, Op{});
  }
};

template <class Op>
struct UnaryPredicateKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    launch_map<bool, T>(context, call.outputs[0], {&call.inputs[0]}, Op{});
  }
};

}  // namespace

void register_unary_kernels(const sdk::Registrar& r) {
  using sdk::FloatingTypes;
  add_kernels<UnaryKernel, ops::Neg>(r, "neg", sdk::NumericTypes{});
  add_kernels<UnaryKernel, ops::Abs>(r, "abs", sdk::NumericTypes{});
  add_kernels<UnaryKernel, ops::Sign>(r, "sign", sdk::NumericTypes{});
  add_kernels<UnaryKernel, ops::Exp>(r, "exp", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Log>(r, "log", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Log1p>(r, "log1p", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Expm1>(r, "expm1", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Sqrt>(r, "sqrt", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Rsqrt>(r, "rsqrt", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Sin>(r, "sin", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Cos>(r, "cos", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Tan>(r, "tan", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Tanh>(r, "tanh", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Sigmoid>(r, "sigmoid", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Erf>(r, "erf", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Erfc>(r, "erfc", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Erfinv>(r, "erfinv", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Asin>(r, "asin", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Acos>(r, "acos", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Atan>(r, "atan", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Lgamma>(r, "lgamma", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Digamma>(r, "digamma", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Reciprocal>(r, "reciprocal", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Floor>(r, "floor", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Ceil>(r, "ceil", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Trunc>(r, "trunc", FloatingTypes{});
  add_kernels<UnaryKernel, ops::Round>(r, "round", FloatingTypes{});
  add_kernels<UnaryPredicateKernel, ops::LogicalNot>(r, "logical_not", sdk::AllTypes{});
  add_kernels<UnaryKernel, ops::BitwiseNot>(r, "bitwise_not", sdk::IntegralTypes{});
}

}  // namespace ember::gpu
