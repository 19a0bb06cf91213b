// matmul with PyTorch's full semantics, linear and embedding, over mm, bmm,
// mm_bias and index_select.
#include <string>

#include "autograd/record.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
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

// Note [mm_bias]: a 2-d product plus a bias added to every row, the shape of
// linear() with a bias (PyTorch's addmm). A backend's mm_bias kernel adds
// the bias as it writes the product, where the decomposition reads and
// writes the whole output a second time, and autograd records one node
// instead of three (mm, the bias's expand, add). Its value is the
// decomposition's: each output the product rounded to the dtype, plus the
// bias, rounded. Its derivative is mm's for a and b and the sum of dy over
// the rows for the bias. Traces decompose it, so that fusion can take the
// add with the ops after it.
Tensor mm_bias(const Tensor& a, const Tensor& b, const Tensor& bias) {
  static const dispatch::Op& fused = dispatch::op(dispatch::OpId::MmBias);
  const bool fits = bias.dim() == 1 && bias.size(0) == b.size(1) && bias.dtype() == a.dtype() &&
                    b.dtype() == a.dtype() && bias.device() == a.device() && b.device() == a.device();
  if (fits && dispatch::use_composite_kernel(fused, a)) return dispatch::call_single(fused, {a, b, bias});
  return mm(a, b) + bias;
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
  if (bias && x.dim() >= 2) {
    // The rows of every batch dim at once, as matmul folds them for mm.
    DimVector out_shape(IntArrayRef(x.sizes().data(), static_cast<size_t>(x.dim() - 1)));
    const Tensor rows = x.dim() == 2 ? x : x.reshape({numel_of(out_shape), x.size(-1)});
    out_shape.push_back(w.size(0));
    // One addmm in PyTorch, and shown as one (Note [mm_bias]).
    const Tensor out = autograd::name_history(mm_bias(rows, w.t(), *bias), "AddmmBackward0");
    return x.dim() == 2 ? out : out.reshape(out_shape);
  }
  const Tensor out = matmul(x, w.t());
  // A 2-d input is one mm in PyTorch, and shows as one.
  if (x.dim() != 2) return bias ? out + *bias : out;
  return autograd::name_history(out, "MmBackward0");
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
