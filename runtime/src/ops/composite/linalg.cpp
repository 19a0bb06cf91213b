// matmul with PyTorch's full semantics, linear and embedding, over mm, bmm
// and index_select.
#include <string>

#include "autograd/record.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

[[noreturn]] void throw_matmul_shapes(const Tensor& a, const Tensor& b) {
  throw_error(ErrorKind::Runtime,
              "matmul(): shapes " + shape_str(a.sizes()) + " and " + shape_str(b.sizes()) + " cannot be multiplied");
}

// Both operands at least 1-D and of one dtype. A 1-D operand is a matrix
// with a unit dim that is dropped from the result, as in NumPy.
Tensor matmul_nd(const Tensor& a_in, const Tensor& b_in) {
  const bool a_vector = a_in.dim() == 1;
  const bool b_vector = b_in.dim() == 1;
  const Tensor a = a_vector ? a_in.unsqueeze(0) : a_in;
  const Tensor b = b_vector ? b_in.unsqueeze(1) : b_in;
  const int64_t n = a.size(-2), k = a.size(-1), m = b.size(-1);
  if (b.size(-2) != k) throw_matmul_shapes(a_in, b_in);

  Tensor out;
  DimVector out_shape;
  if (b.dim() == 2) {
    // [..., n, k] @ [k, m]: fold every batch dim of a into its rows, one mm.
    // The rows are counted, not inferred with -1, which is ambiguous when k is 0.
    out_shape = DimVector(IntArrayRef(a.sizes().data(), static_cast<size_t>(a.dim() - 1)));
    out = mm(a.reshape({numel_of(out_shape), k}), b);
    out_shape.push_back(m);
  } else {
    const IntArrayRef a_batch(a.sizes().data(), static_cast<size_t>(a.dim() - 2));
    const IntArrayRef b_batch(b.sizes().data(), static_cast<size_t>(b.dim() - 2));
    out_shape = broadcast_shapes(a_batch, b_batch, "matmul");
    const int64_t batch = numel_of(out_shape);
    DimVector a_shape = out_shape, b_shape = out_shape;
    a_shape.push_back(n);
    a_shape.push_back(k);
    b_shape.push_back(k);
    b_shape.push_back(m);
    out = bmm(a.expand(a_shape).reshape({batch, n, k}), b.expand(b_shape).reshape({batch, k, m}));
    out_shape.push_back(n);
    out_shape.push_back(m);
  }
  out = out.reshape(out_shape);
  if (b_vector) out = out.squeeze(-1);
  if (a_vector) out = out.squeeze(b_vector ? -1 : -2);
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a_given, const Tensor& b_given) {
  const auto [a, b] = composite::in_lower_precision(a_given, b_given);
  if (a.dim() == 0 || b.dim() == 0) {
    throw_error(ErrorKind::Runtime, "matmul(): both arguments need at least 1 dimension, but got shapes " +
                                        shape_str(a.sizes()) + " and " + shape_str(b.sizes()));
  }
  const DType dtype = result_type(a, b);
  return matmul_nd(a.to(dtype), b.to(dtype));
}

Tensor linear(const Tensor& x_given, const Tensor& w_given, const std::optional<Tensor>& bias_given) {
  // Under autocast the bias joins the product in the lower precision (Note [Autocast]).
  const auto [x, w, bias] = composite::in_lower_precision(x_given, w_given, bias_given);
  composite::check_rank("linear", w, 2, 2, "weight");
  if (x.dim() == 0 || x.size(-1) != w.size(1)) {
    throw_error(ErrorKind::Runtime, "linear(): input " + shape_str(x.sizes()) + " does not match weight " +
                                        shape_str(w.sizes()) + " (expected last dim " + std::to_string(w.size(1)) +
                                        ")");
  }
  const Tensor out = matmul(x, w.t());
  // A 2-d input is one addmm (or mm) in PyTorch, and shows as one.
  if (x.dim() != 2) return bias ? out + *bias : out;
  return bias ? autograd::name_history(out + *bias, "AddmmBackward0") : autograd::name_history(out, "MmBackward0");
}

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  composite::check_rank("embedding", weight, 2, 2, "weight");
  if (is_floating(indices.dtype()) || indices.dtype() == DType::Bool) {
    throw_error(ErrorKind::Runtime,
                "embedding(): expected indices of an integer dtype, but got " + composite::dtype_str(indices));
  }
  const Tensor index = indices.dtype() == DType::Int32 ? indices : indices.to(DType::Int64);
  DimVector shape = indices.sizes();
  shape.push_back(weight.size(1));
  return index_select(weight, 0, index.reshape({-1})).reshape(shape);
}

}  // namespace ember
