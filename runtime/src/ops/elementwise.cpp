// Elementwise ops: the refs layer over the unary/binary/where primitives.
// Here the core promotes dtypes, converts and broadcasts inputs, so that a
// kernel only ever sees same-shape, same-dtype operands (sdk/docs/ops.md).
#include <string>

#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember {
namespace {

using dispatch::Op;

const Op& op_named(const char* name) { return dispatch::OpRegistry::get().at(name); }

[[noreturn]] void throw_dtype(const char* op, DType dtype) {
  throw_error(ErrorKind::Type, std::string(op) + ": not implemented for dtype " + std::string(dtype_name(dtype)));
}

enum class UnaryDomain {
  Numeric,        // every dtype but bool
  FloatPromoting, // integers become the default float dtype first
  Rounding,       // floats only; integers are returned as a copy
  Integral,       // integers and bool
  Any,            // every dtype (logical ops)
};

Tensor unary(const char* name, const Tensor& x, UnaryDomain domain) {
  const Op& op = op_named(name);
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
    throw_error(ErrorKind::Type, "sub: subtraction, the `-` operator, with two bool tensors is not supported; "
                                 "use the `^` or logical_xor() operator instead");
  }
}

Tensor binary_with_dtype(const char* name, const Tensor& a, const Tensor& b, BinaryKind kind, DType common) {
  check_same_device(name, a, b);
  const DType compute = binary_compute_dtype(name, common, kind);
  check_bool_arithmetic(name, compute);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  return dispatch::call_single(op_named(name), {a.to(compute).expand(shape), b.to(compute).expand(shape)});
}

Tensor binary(const char* name, const Tensor& a, const Tensor& b, BinaryKind kind) {
  return binary_with_dtype(name, a, b, kind, result_type(a, b));
}

Tensor binary_scalar(const char* name, const Tensor& a, const Scalar& b, BinaryKind kind) {
  const DType common = result_type(a, b);
  return binary_with_dtype(name, a, scalar_tensor(b, TensorOptions(common, a.device())), kind, common);
}

bool has_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return true;
  }
  return false;
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.is_alias_of(b) && a.storage_offset() == b.storage_offset() && a.sizes() == b.sizes() &&
         a.strides() == b.strides();
}

// PyTorch's can_cast: no floating result into an integral tensor and no
// non-bool result into a bool tensor.
void check_can_store(const char* name, DType result, DType target) {
  if ((is_floating(result) && !is_floating(target)) || (result != DType::Bool && target == DType::Bool)) {
    throw_error(ErrorKind::Type, std::string(name) + "_: result type " + std::string(dtype_name(result)) +
                                     " can't be cast to the desired output type " + std::string(dtype_name(target)));
  }
}

Tensor& binary_inplace(const char* name, Tensor& a, const Tensor& b, BinaryKind kind) {
  check_same_device(name, a, b);
  const DType compute = binary_compute_dtype(name, result_type(a, b), kind);
  check_can_store(name, compute, a.dtype());
  check_bool_arithmetic(name, compute);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), name);
  if (!(shape == a.sizes())) {
    throw_error(ErrorKind::Value, std::string(name) + "_: output with shape " + shape_str(a.sizes()) +
                                      " doesn't match the broadcast shape " + shape_str(shape));
  }
  if (has_internal_overlap(a)) {
    throw_error(ErrorKind::Runtime, std::string(name) + "_: unsupported operation: more than one element of the "
                                        "written-to tensor refers to a single memory location; clone() it first");
  }
  // Kernels accept an output identical to an input but no partial overlap.
  Tensor rhs = b.is_alias_of(a) && !same_view(a, b) ? b.clone() : b;
  rhs = rhs.to(compute).expand(shape);
  if (compute == a.dtype()) {
    dispatch::call_into(op_named(name), {a, rhs}, a);
  } else {
    a.copy_(dispatch::call_single(op_named(name), {a.to(compute), rhs}));
  }
  return a;
}

}  // namespace

Tensor neg(const Tensor& x) {
  if (x.dtype() == DType::Bool) {
    throw_error(ErrorKind::Type, "neg: negation, the `-` operator, on a bool tensor is not supported; "
                                 "use the `~` or logical_not() operator instead");
  }
  return unary("neg", x, UnaryDomain::Numeric);
}
Tensor abs(const Tensor& x) { return unary("abs", x, UnaryDomain::Numeric); }
Tensor sign(const Tensor& x) { return unary("sign", x, UnaryDomain::Numeric); }
Tensor exp(const Tensor& x) { return unary("exp", x, UnaryDomain::FloatPromoting); }
Tensor log(const Tensor& x) { return unary("log", x, UnaryDomain::FloatPromoting); }
Tensor log1p(const Tensor& x) { return unary("log1p", x, UnaryDomain::FloatPromoting); }
Tensor expm1(const Tensor& x) { return unary("expm1", x, UnaryDomain::FloatPromoting); }
Tensor sqrt(const Tensor& x) { return unary("sqrt", x, UnaryDomain::FloatPromoting); }
Tensor rsqrt(const Tensor& x) { return unary("rsqrt", x, UnaryDomain::FloatPromoting); }
Tensor sin(const Tensor& x) { return unary("sin", x, UnaryDomain::FloatPromoting); }
Tensor cos(const Tensor& x) { return unary("cos", x, UnaryDomain::FloatPromoting); }
Tensor tan(const Tensor& x) { return unary("tan", x, UnaryDomain::FloatPromoting); }
Tensor tanh(const Tensor& x) { return unary("tanh", x, UnaryDomain::FloatPromoting); }
Tensor sigmoid(const Tensor& x) { return unary("sigmoid", x, UnaryDomain::FloatPromoting); }
Tensor erf(const Tensor& x) { return unary("erf", x, UnaryDomain::FloatPromoting); }
Tensor reciprocal(const Tensor& x) { return unary("reciprocal", x, UnaryDomain::FloatPromoting); }
Tensor floor(const Tensor& x) { return unary("floor", x, UnaryDomain::Rounding); }
Tensor ceil(const Tensor& x) { return unary("ceil", x, UnaryDomain::Rounding); }
Tensor round(const Tensor& x) { return unary("round", x, UnaryDomain::Rounding); }
Tensor trunc(const Tensor& x) { return unary("trunc", x, UnaryDomain::Rounding); }
Tensor logical_not(const Tensor& x) { return unary("logical_not", x, UnaryDomain::Any); }
Tensor bitwise_not(const Tensor& x) { return unary("bitwise_not", x, UnaryDomain::Integral); }

Tensor add(const Tensor& a, const Tensor& b) { return binary("add", a, b, BinaryKind::Arithmetic); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary("sub", a, b, BinaryKind::Arithmetic); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary("mul", a, b, BinaryKind::Arithmetic); }
Tensor div(const Tensor& a, const Tensor& b) { return binary("div", a, b, BinaryKind::TrueDivide); }
Tensor floor_divide(const Tensor& a, const Tensor& b) { return binary("floor_divide", a, b, BinaryKind::Arithmetic); }
Tensor remainder(const Tensor& a, const Tensor& b) { return binary("remainder", a, b, BinaryKind::Arithmetic); }
Tensor pow(const Tensor& a, const Tensor& b) { return binary("pow", a, b, BinaryKind::Arithmetic); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary("maximum", a, b, BinaryKind::Arithmetic); }
Tensor minimum(const Tensor& a, const Tensor& b) { return binary("minimum", a, b, BinaryKind::Arithmetic); }
Tensor bitwise_and(const Tensor& a, const Tensor& b) { return binary("bitwise_and", a, b, BinaryKind::Bitwise); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return binary("bitwise_or", a, b, BinaryKind::Bitwise); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return binary("bitwise_xor", a, b, BinaryKind::Bitwise); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return binary("logical_and", a, b, BinaryKind::Compare); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return binary("logical_or", a, b, BinaryKind::Compare); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return binary("logical_xor", a, b, BinaryKind::Compare); }
Tensor eq(const Tensor& a, const Tensor& b) { return binary("eq", a, b, BinaryKind::Compare); }
Tensor ne(const Tensor& a, const Tensor& b) { return binary("ne", a, b, BinaryKind::Compare); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary("lt", a, b, BinaryKind::Compare); }
Tensor le(const Tensor& a, const Tensor& b) { return binary("le", a, b, BinaryKind::Compare); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary("gt", a, b, BinaryKind::Compare); }
Tensor ge(const Tensor& a, const Tensor& b) { return binary("ge", a, b, BinaryKind::Compare); }

Tensor add(const Tensor& a, const Scalar& b) { return binary_scalar("add", a, b, BinaryKind::Arithmetic); }
Tensor sub(const Tensor& a, const Scalar& b) { return binary_scalar("sub", a, b, BinaryKind::Arithmetic); }
Tensor mul(const Tensor& a, const Scalar& b) { return binary_scalar("mul", a, b, BinaryKind::Arithmetic); }
Tensor div(const Tensor& a, const Scalar& b) { return binary_scalar("div", a, b, BinaryKind::TrueDivide); }
Tensor pow(const Tensor& a, const Scalar& b) { return binary_scalar("pow", a, b, BinaryKind::Arithmetic); }
Tensor eq(const Tensor& a, const Scalar& b) { return binary_scalar("eq", a, b, BinaryKind::Compare); }
Tensor ne(const Tensor& a, const Scalar& b) { return binary_scalar("ne", a, b, BinaryKind::Compare); }
Tensor lt(const Tensor& a, const Scalar& b) { return binary_scalar("lt", a, b, BinaryKind::Compare); }
Tensor le(const Tensor& a, const Scalar& b) { return binary_scalar("le", a, b, BinaryKind::Compare); }
Tensor gt(const Tensor& a, const Scalar& b) { return binary_scalar("gt", a, b, BinaryKind::Compare); }
Tensor ge(const Tensor& a, const Scalar& b) { return binary_scalar("ge", a, b, BinaryKind::Compare); }

Tensor& add_(Tensor& a, const Tensor& b) { return binary_inplace("add", a, b, BinaryKind::Arithmetic); }
Tensor& sub_(Tensor& a, const Tensor& b) { return binary_inplace("sub", a, b, BinaryKind::Arithmetic); }
Tensor& mul_(Tensor& a, const Tensor& b) { return binary_inplace("mul", a, b, BinaryKind::Arithmetic); }
Tensor& div_(Tensor& a, const Tensor& b) { return binary_inplace("div", a, b, BinaryKind::TrueDivide); }

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (cond.dtype() != DType::Bool) {
    throw_error(ErrorKind::Type, "where: expected condition to be a boolean tensor, but got a tensor with dtype " +
                                     std::string(dtype_name(cond.dtype())));
  }
  check_same_device("where", cond, a);
  check_same_device("where", a, b);
  const DType common = result_type(a, b);
  const DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes(), "where"), b.sizes(), "where");
  return dispatch::call_single(op_named("where"),
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
  const DType common = result_type(b, a);
  return binary_with_dtype("sub", scalar_tensor(a, TensorOptions(common, b.device())), b, BinaryKind::Arithmetic, common);
}
Tensor operator/(const Scalar& a, const Tensor& b) {
  const DType common = result_type(b, a);
  return binary_with_dtype("div", scalar_tensor(a, TensorOptions(common, b.device())), b, BinaryKind::TrueDivide, common);
}

}  // namespace ember
