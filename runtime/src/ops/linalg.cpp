#include <string>

#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember {
namespace {

void check_matmul_operands(const char* name, const Tensor& a, const Tensor& b, int64_t rank) {
  if (a.dim() != rank || b.dim() != rank) {
    throw_error(ErrorKind::Runtime, std::string(name) + ": expected " + std::to_string(rank) + "-D tensors, got " +
                                        shape_str(a.sizes()) + " and " + shape_str(b.sizes()));
  }
  if (a.dtype() != b.dtype()) {
    throw_error(ErrorKind::Runtime, std::string(name) + ": expected both operands to have the same dtype, but got " +
                                        std::string(dtype_name(a.dtype())) + " and " +
                                        std::string(dtype_name(b.dtype())));
  }
  if (a.device() != b.device()) {
    throw_error(ErrorKind::Runtime, std::string(name) + ": expected both operands on the same device, got " +
                                        a.device().str() + " and " + b.device().str());
  }
  if (a.sizes()[rank - 1] != b.sizes()[rank - 2] || (rank == 3 && a.sizes()[0] != b.sizes()[0])) {
    throw_error(ErrorKind::Runtime, std::string(name) + ": shapes " + shape_str(a.sizes()) + " and " +
                                        shape_str(b.sizes()) + " cannot be multiplied");
  }
  if (a.dtype() == DType::Bool) {
    throw_error(ErrorKind::NotImplemented, std::string(name) + ": not implemented for dtype bool");
  }
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  check_matmul_operands("mm", a, b, 2);
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::Mm);
  return dispatch::call_single(op, {a, b});
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  check_matmul_operands("bmm", a, b, 3);
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::Bmm);
  return dispatch::call_single(op, {a, b});
}

}  // namespace ember
