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
#include "ops/op_record.h"

namespace ember {
namespace {

using dispatch::Op;
using dispatch::OpId;
using ops::DTypeRule;

[[noreturn]] void throw_dtype(const char* op, DType dtype) {
  throw_error(ErrorKind::NotImplemented,
              std::string(op) + ": not implemented for dtype " + std::string(dtype_name(dtype)));
}

Tensor unary(OpId id, const Tensor& x) {
  const ops::OpRecord& record = ops::record(id);
  const Op& op = dispatch::op(id);
  const DType d = x.dtype();
  switch (record.dtype_rule) {
    case DTypeRule::Numeric:
      if (d == DType::Bool) throw_dtype(record.name, d);
      break;
    case DTypeRule::FloatPromoting:
      if (!is_floating(d)) return dispatch::call_unary(op, x.to(default_float_dtype()));
      break;
    case DTypeRule::Rounding:
      if (!is_floating(d)) return x.clone();
      break;
    case DTypeRule::Integral:
      if (!is_integral(d, true)) throw_dtype(record.name, d);
      break;
    default:
      break;
  }
  return dispatch::call_unary(op, x);
}

DType binary_compute_dtype(const char* name, DType common, DTypeRule rule) {
  switch (rule) {
    case DTypeRule::TrueDivide:
      return is_floating(common) ? common : default_float_dtype();
    case DTypeRule::Bitwise:
      if (!is_integral(common, true)) throw_dtype(name, common);
      return common;
    default:
      break;
  }
  return common;
}

void check_same_device(const char* name, const Tensor& a, const Tensor& b) {
  if (a.device() != b.device()) {
    throw_error(ErrorKind::Runtime, std::string(name) +
                                        ": expected all tensors to be on the same device, but found "
                                        "at least two devices, " +
                                        a.device().str() + " and " + b.device().str() + "!");
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

Tensor binary_with_dtype(OpId id, const Tensor& a, const Tensor& b, DType common) {
  const ops::OpRecord& record = ops::record(id);
  const char* name = record.name;
  check_same_device(name, a, b);
  const DType compute = binary_compute_dtype(name, common, record.dtype_rule);
  check_bool_arithmetic(name, compute);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  return dispatch::call_single(dispatch::op(id), {a.to(compute).expand(shape), b.to(compute).expand(shape)});
}

Tensor binary(OpId id, const Tensor& a, const Tensor& b) { return binary_with_dtype(id, a, b, result_type(a, b)); }

Tensor binary_scalar(OpId id, const Tensor& a, const Scalar& b) {
  const DType common = result_type(a, b);
  return binary_with_dtype(id, a, scalar_tensor(b, TensorOptions(common, a.device())), common);
}

// A scalar on the left of a non-commutative op.
Tensor scalar_binary(OpId id, const Scalar& a, const Tensor& b) {
  const DType common = result_type(b, a);
  return binary_with_dtype(id, scalar_tensor(a, TensorOptions(common, b.device())), b, common);
}

Tensor& binary_inplace(OpId id, Tensor& a, const Tensor& b) {
  const ops::OpRecord& record = ops::record(id);
  const char* name = record.name;
  check_same_device(name, a, b);
  const DType compute = binary_compute_dtype(name, result_type(a, b), record.dtype_rule);
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
  const Op& op = dispatch::op(id);
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
  return unary(OpId::Neg, x);
}
Tensor abs(const Tensor& x) { return unary(OpId::Abs, x); }
Tensor sign(const Tensor& x) { return unary(OpId::Sign, x); }
Tensor exp(const Tensor& x) { return unary(OpId::Exp, x); }
Tensor log(const Tensor& x) { return unary(OpId::Log, x); }
Tensor log1p(const Tensor& x) { return unary(OpId::Log1p, x); }
Tensor expm1(const Tensor& x) { return unary(OpId::Expm1, x); }
Tensor sqrt(const Tensor& x) { return unary(OpId::Sqrt, x); }
Tensor rsqrt(const Tensor& x) { return unary(OpId::Rsqrt, x); }
Tensor sin(const Tensor& x) { return unary(OpId::Sin, x); }
Tensor cos(const Tensor& x) { return unary(OpId::Cos, x); }
Tensor tan(const Tensor& x) { return unary(OpId::Tan, x); }
Tensor tanh(const Tensor& x) { return unary(OpId::Tanh, x); }
Tensor sigmoid(const Tensor& x) { return unary(OpId::Sigmoid, x); }
Tensor erf(const Tensor& x) { return unary(OpId::Erf, x); }
Tensor erfc(const Tensor& x) { return unary(OpId::Erfc, x); }
Tensor erfinv(const Tensor& x) { return unary(OpId::Erfinv, x); }
Tensor asin(const Tensor& x) { return unary(OpId::Asin, x); }
Tensor acos(const Tensor& x) { return unary(OpId::Acos, x); }
Tensor atan(const Tensor& x) { return unary(OpId::Atan, x); }
Tensor lgamma(const Tensor& x) { return unary(OpId::Lgamma, x); }
Tensor digamma(const Tensor& x) { return unary(OpId::Digamma, x); }
Tensor reciprocal(const Tensor& x) { return unary(OpId::Reciprocal, x); }
Tensor floor(const Tensor& x) { return unary(OpId::Floor, x); }
Tensor ceil(const Tensor& x) { return unary(OpId::Ceil, x); }
Tensor round(const Tensor& x) { return unary(OpId::Round, x); }
Tensor trunc(const Tensor& x) { return unary(OpId::Trunc, x); }
Tensor logical_not(const Tensor& x) { return unary(OpId::LogicalNot, x); }
Tensor bitwise_not(const Tensor& x) { return unary(OpId::BitwiseNot, x); }

Tensor add(const Tensor& a, const Tensor& b) { return binary(OpId::Add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(OpId::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(OpId::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(OpId::Div, a, b); }
Tensor floor_divide(const Tensor& a, const Tensor& b) { return binary(OpId::FloorDivide, a, b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return binary(OpId::Remainder, a, b); }
Tensor pow(const Tensor& a, const Tensor& b) { return binary(OpId::Pow, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(OpId::Maximum, a, b); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(OpId::Minimum, a, b); }
Tensor atan2(const Tensor& a, const Tensor& b) { return binary(OpId::Atan2, a, b); }
Tensor bitwise_and(const Tensor& a, const Tensor& b) { return binary(OpId::BitwiseAnd, a, b); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return binary(OpId::BitwiseOr, a, b); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return binary(OpId::BitwiseXor, a, b); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return binary(OpId::LogicalAnd, a, b); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return binary(OpId::LogicalOr, a, b); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return binary(OpId::LogicalXor, a, b); }
Tensor eq(const Tensor& a, const Tensor& b) { return binary(OpId::Eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return binary(OpId::Ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary(OpId::Lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return binary(OpId::Le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary(OpId::Gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return binary(OpId::Ge, a, b); }

Tensor add(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Add, a, b); }
Tensor sub(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Sub, a, b); }
Tensor mul(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Mul, a, b); }
Tensor div(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Div, a, b); }
Tensor pow(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Pow, a, b); }
Tensor eq(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Eq, a, b); }
Tensor ne(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Ne, a, b); }
Tensor lt(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Lt, a, b); }
Tensor le(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Le, a, b); }
Tensor gt(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Gt, a, b); }
Tensor ge(const Tensor& a, const Scalar& b) { return binary_scalar(OpId::Ge, a, b); }

Tensor& add_(Tensor& a, const Tensor& b) { return binary_inplace(OpId::Add, a, b); }
Tensor& sub_(Tensor& a, const Tensor& b) { return binary_inplace(OpId::Sub, a, b); }
Tensor& mul_(Tensor& a, const Tensor& b) { return binary_inplace(OpId::Mul, a, b); }
Tensor& div_(Tensor& a, const Tensor& b) { return binary_inplace(OpId::Div, a, b); }

namespace {

// A unary primitive whose kernel for x's dtype gives that dtype back can
// write into x itself: the Autograd step then keeps a copy of x only when
// the derivative reads it, and no result is copied back.
bool has_inplace_kernel(const Tensor& x, std::string_view name) {
  const Op* op = dispatch::OpRegistry::get().find(name);
  if (op == nullptr || op->schema().kind != dispatch::OpKind::Primitive || op->schema().num_inputs != 1 ||
      op->schema().num_outputs != 1 || !is_floating(x.dtype()) || x.device().is_meta() ||
      op->kernel(x.device().type, x.dtype()) == nullptr) {
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
    dispatch::call_into(dispatch::op_named(name), {x}, x);
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
  return dispatch::call_single(dispatch::op(OpId::Where),
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
Tensor operator-(const Scalar& a, const Tensor& b) { return scalar_binary(OpId::Sub, a, b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return scalar_binary(OpId::Div, a, b); }

}  // namespace ember
