// Elementwise ops: the refs layer over the unary/binary/where primitives.
// Here the core promotes dtypes, converts and broadcasts inputs, so that a
// kernel only ever sees same-shape, same-dtype operands (sdk/docs/ops.md).
#include <string>

#include "core/memory_overlap.h"
#include "core/narrowing.h"
#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember {
namespace {

using dispatch::Op;

using dispatch::op_named;

[[noreturn]] void throw_dtype(const char* op, DType dtype) {
  throw_error(ErrorKind::NotImplemented,
              std::string(op) + ": not implemented for dtype " + std::string(dtype_name(dtype)));
}

enum class UnaryDomain {
  Numeric,        // every dtype but bool
  FloatPromoting, // integers become the default float dtype first
  Rounding,       // floats only; integers are returned as a copy
  Integral,       // integers and bool
  Any,            // every dtype (logical ops)
};

Tensor unary(const Op& op, const Tensor& x, UnaryDomain domain) {
  const char* name = op.name().c_str();
  const DType d = x.dtype();
  switch (domain) {
    case UnaryDomain::Numeric:
      if (d == DType::Bool) throw_dtype(name, d);
      break;
    case UnaryDomain::FloatPromoting:
      if (!is_floating(d)) return dispatch::call_single(op, {x.to(default_float_dtype())});
      break;
    case UnaryDomain::Rounding:
      if (!is_floating(d)) return x.clone();
      break;
    case UnaryDomain::Integral:
      if (!is_integral(d, true)) throw_dtype(name, d);
      break;
    case UnaryDomain::Any:
      break;
  }
  return dispatch::call_single(op, {x});
}

enum class BinaryKind {
  Arithmetic,  // result in the common dtype
  TrueDivide,  // integers promote to the default float dtype
  Bitwise,     // integers and bool only
  Compare,     // bool result, compared in the common dtype
};

DType binary_compute_dtype(const char* name, DType common, BinaryKind kind) {
  switch (kind) {
    case BinaryKind::TrueDivide:
      return is_floating(common) ? common : default_float_dtype();
    case BinaryKind::Bitwise:
      if (!is_integral(common, true)) throw_dtype(name, common);
      return common;
    case BinaryKind::Arithmetic:
    case BinaryKind::Compare:
      break;
  }
  return common;
}

void check_same_device(const char* name, const Tensor& a, const Tensor& b) {
  if (a.device() != b.device()) {
    throw_error(ErrorKind::Runtime, std::string(name) + ": expected all tensors to be on the same device, but found "
                                        "at least two devices, " + a.device().str() + " and " + b.device().str() + "!");
  }
}

void check_bool_arithmetic(const char* name, DType compute) {
  const std::string_view n(name);
  if (compute == DType::Bool && n == "sub") {
    throw_error(ErrorKind::Runtime,
                "sub: subtraction, the `-` operator, with two bool tensors is not supported; "
                "use the `^` or logical_xor() operator instead");
  }
}

Tensor binary_with_dtype(const Op& op, const Tensor& a, const Tensor& b, BinaryKind kind, DType common) {
  const char* name = op.name().c_str();
  check_same_device(name, a, b);
  const DType compute = binary_compute_dtype(name, common, kind);
  check_bool_arithmetic(name, compute);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  return dispatch::call_single(op, {a.to(compute).expand(shape), b.to(compute).expand(shape)});
}

Tensor binary(const Op& op, const Tensor& a, const Tensor& b, BinaryKind kind) {
  return binary_with_dtype(op, a, b, kind, result_type(a, b));
}

Tensor binary_scalar(const Op& op, const Tensor& a, const Scalar& b, BinaryKind kind) {
  const DType common = result_type(a, b);
  return binary_with_dtype(op, a, scalar_tensor(b, TensorOptions(common, a.device())), kind, common);
}

// A scalar on the left of a non-commutative op.
Tensor scalar_binary(const Op& op, const Scalar& a, const Tensor& b, BinaryKind kind) {
  const DType common = result_type(b, a);
  return binary_with_dtype(op, scalar_tensor(a, TensorOptions(common, b.device())), b, kind, common);
}

Tensor& binary_inplace(const Op& op, Tensor& a, const Tensor& b, BinaryKind kind) {
  const char* name = op.name().c_str();
  check_same_device(name, a, b);
  const DType compute = binary_compute_dtype(name, result_type(a, b), kind);
  check_inplace_result_type(compute, a.dtype(), std::string(name) + "_");
  check_bool_arithmetic(name, compute);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  if (!(shape == a.sizes())) {
    throw_error(ErrorKind::Runtime, std::string(name) + "_: output with shape " + shape_str(a.sizes()) +
                                        " doesn't match the broadcast shape " + shape_str(shape));
  }
  check_no_internal_overlap(a, std::string(name) + "_");
  // Kernels accept an output identical to an input but no partial overlap.
  const Tensor rhs = input_for_inplace(a, b, std::string(name) + "_").to(compute).expand(shape);
  if (compute == a.dtype()) {
    dispatch::call_into(op, {a, rhs}, a);
  } else {
    a.copy_(dispatch::call_single(op, {a.to(compute), rhs}));
  }
  return a;
}

}  // namespace

Tensor neg(const Tensor& x) {
  if (x.dtype() == DType::Bool) {
    throw_error(ErrorKind::Runtime,
                "neg: negation, the `-` operator, on a bool tensor is not supported; "
                "use the `~` or logical_not() operator instead");
  }
  static const Op& op = op_named("neg");
  return unary(op, x, UnaryDomain::Numeric);
}
Tensor abs(const Tensor& x) {
  static const Op& op = op_named("abs");
  return unary(op, x, UnaryDomain::Numeric);
}
Tensor sign(const Tensor& x) {
  static const Op& op = op_named("sign");
  return unary(op, x, UnaryDomain::Numeric);
}
Tensor exp(const Tensor& x) {
  static const Op& op = op_named("exp");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor log(const Tensor& x) {
  static const Op& op = op_named("log");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor log1p(const Tensor& x) {
  static const Op& op = op_named("log1p");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor expm1(const Tensor& x) {
  static const Op& op = op_named("expm1");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor sqrt(const Tensor& x) {
  static const Op& op = op_named("sqrt");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor rsqrt(const Tensor& x) {
  static const Op& op = op_named("rsqrt");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor sin(const Tensor& x) {
  static const Op& op = op_named("sin");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor cos(const Tensor& x) {
  static const Op& op = op_named("cos");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor tan(const Tensor& x) {
  static const Op& op = op_named("tan");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor tanh(const Tensor& x) {
  static const Op& op = op_named("tanh");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor sigmoid(const Tensor& x) {
  static const Op& op = op_named("sigmoid");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor erf(const Tensor& x) {
  static const Op& op = op_named("erf");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor reciprocal(const Tensor& x) {
  static const Op& op = op_named("reciprocal");
  return unary(op, x, UnaryDomain::FloatPromoting);
}
Tensor floor(const Tensor& x) {
  static const Op& op = op_named("floor");
  return unary(op, x, UnaryDomain::Rounding);
}
Tensor ceil(const Tensor& x) {
  static const Op& op = op_named("ceil");
  return unary(op, x, UnaryDomain::Rounding);
}
Tensor round(const Tensor& x) {
  static const Op& op = op_named("round");
  return unary(op, x, UnaryDomain::Rounding);
}
Tensor trunc(const Tensor& x) {
  static const Op& op = op_named("trunc");
  return unary(op, x, UnaryDomain::Rounding);
}
Tensor logical_not(const Tensor& x) {
  static const Op& op = op_named("logical_not");
  return unary(op, x, UnaryDomain::Any);
}
Tensor bitwise_not(const Tensor& x) {
  static const Op& op = op_named("bitwise_not");
  return unary(op, x, UnaryDomain::Integral);
}

Tensor add(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("add");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor sub(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("sub");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor mul(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("mul");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor div(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("div");
  return binary(op, a, b, BinaryKind::TrueDivide);
}
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("floor_divide");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor remainder(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("remainder");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor pow(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("pow");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("maximum");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("minimum");
  return binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor bitwise_and(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("bitwise_and");
  return binary(op, a, b, BinaryKind::Bitwise);
}
Tensor bitwise_or(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("bitwise_or");
  return binary(op, a, b, BinaryKind::Bitwise);
}
Tensor bitwise_xor(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("bitwise_xor");
  return binary(op, a, b, BinaryKind::Bitwise);
}
Tensor logical_and(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("logical_and");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("logical_or");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("logical_xor");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor eq(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("eq");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor ne(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("ne");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor lt(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("lt");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor le(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("le");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor gt(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("gt");
  return binary(op, a, b, BinaryKind::Compare);
}
Tensor ge(const Tensor& a, const Tensor& b) {
  static const Op& op = op_named("ge");
  return binary(op, a, b, BinaryKind::Compare);
}

Tensor add(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("add");
  return binary_scalar(op, a, b, BinaryKind::Arithmetic);
}
Tensor sub(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("sub");
  return binary_scalar(op, a, b, BinaryKind::Arithmetic);
}
Tensor mul(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("mul");
  return binary_scalar(op, a, b, BinaryKind::Arithmetic);
}
Tensor div(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("div");
  return binary_scalar(op, a, b, BinaryKind::TrueDivide);
}
Tensor pow(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("pow");
  return binary_scalar(op, a, b, BinaryKind::Arithmetic);
}
Tensor eq(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("eq");
  return binary_scalar(op, a, b, BinaryKind::Compare);
}
Tensor ne(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("ne");
  return binary_scalar(op, a, b, BinaryKind::Compare);
}
Tensor lt(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("lt");
  return binary_scalar(op, a, b, BinaryKind::Compare);
}
Tensor le(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("le");
  return binary_scalar(op, a, b, BinaryKind::Compare);
}
Tensor gt(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("gt");
  return binary_scalar(op, a, b, BinaryKind::Compare);
}
Tensor ge(const Tensor& a, const Scalar& b) {
  static const Op& op = op_named("ge");
  return binary_scalar(op, a, b, BinaryKind::Compare);
}

Tensor& add_(Tensor& a, const Tensor& b) {
  static const Op& op = op_named("add");
  return binary_inplace(op, a, b, BinaryKind::Arithmetic);
}
Tensor& sub_(Tensor& a, const Tensor& b) {
  static const Op& op = op_named("sub");
  return binary_inplace(op, a, b, BinaryKind::Arithmetic);
}
Tensor& mul_(Tensor& a, const Tensor& b) {
  static const Op& op = op_named("mul");
  return binary_inplace(op, a, b, BinaryKind::Arithmetic);
}
Tensor& div_(Tensor& a, const Tensor& b) {
  static const Op& op = op_named("div");
  return binary_inplace(op, a, b, BinaryKind::TrueDivide);
}

namespace {

// A unary primitive whose kernel for x's dtype gives that dtype back can
// write into x itself: the Autograd step then keeps a copy of x only when
// the derivative reads it, and no result is copied back.
bool has_inplace_kernel(const Tensor& x, std::string_view name) {
  const Op* op = dispatch::OpRegistry::get().find(name);
  if (op == nullptr || op->schema().composite || op->schema().num_inputs != 1 || op->schema().num_outputs != 1 ||
      !is_floating(x.dtype()) || x.device().is_meta() || op->kernel(x.device().type, x.dtype()) == nullptr) {
    return false;
  }
  dispatch::OpCall call;
  call.inputs = &x;
  call.num_inputs = 1;
  dispatch::TensorMeta out;
  op->schema().meta(call, &out);
  return out.dtype == x.dtype();
}

}  // namespace

Tensor& apply_inplace(Tensor& x, const std::function<Tensor(const Tensor&)>& op, std::string_view name,
                      std::initializer_list<Tensor> operands) {
  const std::string inplace_name = std::string(name) + "_";
  check_no_internal_overlap(x, inplace_name);
  if (operands.size() == 0 && has_inplace_kernel(x, name)) {
    dispatch::call_into(op_named(name), {x}, x);
    return x;
  }
  bool recorded = x.requires_grad();
  for (const Tensor& t : operands) recorded |= t.defined() && t.requires_grad();
  recorded &= autograd::is_grad_enabled();
  const Tensor result = op(recorded ? x.clone() : x);
  check_inplace_result_type(result.dtype(), x.dtype(), inplace_name);
  if (!(result.sizes() == x.sizes())) {
    throw_error(ErrorKind::Runtime, inplace_name + ": output with shape " + shape_str(x.sizes()) +
                                        " doesn't match the broadcast shape " + shape_str(result.sizes()));
  }
  return x.copy_(result);
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (cond.dtype() != DType::Bool) {
    throw_error(ErrorKind::Runtime, "where: expected condition to be a boolean tensor, but got a tensor with dtype " +
                                        std::string(dtype_name(cond.dtype())));
  }
  check_same_device("where", cond, a);
  check_same_device("where", a, b);
  const DType common = result_type(a, b);
  const DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes(), "where"), b.sizes(), "where");
  static const Op& op = op_named("where");
  return dispatch::call_single(op,
                               {cond.expand(shape), a.to(common).expand(shape), b.to(common).expand(shape)});
}

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator-(const Scalar& a, const Tensor& b) {
  static const Op& op = op_named("sub");
  return scalar_binary(op, a, b, BinaryKind::Arithmetic);
}
Tensor operator/(const Scalar& a, const Tensor& b) {
  static const Op& op = op_named("div");
  return scalar_binary(op, a, b, BinaryKind::TrueDivide);
}

}  // namespace ember
