#include <string>
#include <vector>

#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember {
namespace {

using dispatch::op_named;

void check_index_tensor(const char* name, const Tensor& index, const Tensor& x) {
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32) {
    throw_error(ErrorKind::Runtime, std::string(name) + "(): expected dtype int64 or int32 for index, but got " +
                                        std::string(dtype_name(index.dtype())));
  }
  if (index.device() != x.device()) {
    throw_error(ErrorKind::Runtime, std::string(name) + "(): index is on " + index.device().str() +
                                        " but the tensor is on " + x.device().str());
  }
}

// Kernels see no 0-d tensor (ops.md "Indexing"): the core views one as [1].
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

void check_gather_shapes(const char* name, const Tensor& x, int64_t dim, const Tensor& index) {
  if (index.dim() != x.dim() && !(x.dim() == 0 && index.dim() <= 1)) {
    throw_error(ErrorKind::Runtime, std::string(name) + "(): index " + shape_str(index.sizes()) + " and input " +
                                        shape_str(x.sizes()) + " must have the same number of dimensions");
  }
  for (int64_t d = 0; d < index.dim() && d < x.dim(); ++d) {
    if (d != dim && index.sizes()[d] > x.sizes()[d]) {
      throw_error(ErrorKind::Runtime, std::string(name) + "(): size of index " + shape_str(index.sizes()) +
                                          " exceeds input " + shape_str(x.sizes()) + " at dimension " +
                                          std::to_string(d));
    }
  }
}

// A kernel reports an index value out of range as OUT_OF_RANGE, an
// IndexError; PyTorch raises that as a RuntimeError for gather and scatter
// (and as an IndexError for index_select), so these two say so.
template <typename F>
Tensor with_runtime_range_errors(F&& call) {
  try {
    return call();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Index) throw;
    throw_error(ErrorKind::Runtime, e.what());
  }
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  check_index_tensor("index_select", index, x);
  if (index.dim() > 1) {
    throw_error(ErrorKind::Index, "index_select(): index must be 0-D or 1-D, got shape " + shape_str(index.sizes()));
  }
  const int64_t d = normalize_dim(dim, x.dim(), "index_select");
  if (x.dim() == 0 && index.numel() != 1) {
    throw_error(ErrorKind::Index,
                "index_select(): a 0-D tensor takes exactly one index, got " + std::to_string(index.numel()));
  }
  const Tensor out = dispatch::call_single(dispatch::op(dispatch::OpId::IndexSelect),
                                           {at_least_1d(x), index.reshape({-1})}, {dispatch::attr_int("dim", d)});
  return x.dim() == 0 ? out.reshape({}) : out;
}

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  check_index_tensor("gather", index, x);
  const int64_t d = normalize_dim(dim, x.dim(), "gather");
  check_gather_shapes("gather", x, d, index);
  return with_runtime_range_errors([&] {
    const Tensor out = dispatch::call_single(dispatch::op(dispatch::OpId::Gather), {at_least_1d(x), at_least_1d(index)},
                                             {dispatch::attr_int("dim", d)});
    return index.dim() == 0 ? out.reshape({}) : out;
  });
}

Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  check_index_tensor("scatter_add", index, x);
  const int64_t d = normalize_dim(dim, x.dim(), "scatter_add");
  check_gather_shapes("scatter_add", x, d, index);
  if (src.dim() != index.dim()) {
    throw_error(ErrorKind::Runtime, "scatter_add(): index " + shape_str(index.sizes()) + " and src " +
                                        shape_str(src.sizes()) + " must have the same number of dimensions");
  }
  for (int64_t i = 0; i < index.dim(); ++i) {
    if (index.sizes()[i] > src.sizes()[i]) {
      throw_error(ErrorKind::Runtime, "scatter_add(): size of index " + shape_str(index.sizes()) + " exceeds src " +
                                          shape_str(src.sizes()) + " at dimension " + std::to_string(i));
    }
  }
  if (src.device() != x.device()) {
    throw_error(ErrorKind::Runtime,
                "scatter_add(): src is on " + src.device().str() + " but the tensor is on " + x.device().str());
  }
  return with_runtime_range_errors([&] {
    const Tensor out = dispatch::call_single(dispatch::op(dispatch::OpId::ScatterAdd),
                                             {at_least_1d(x), at_least_1d(index), at_least_1d(src.to(x.dtype()))},
                                             {dispatch::attr_int("dim", d)});
    return x.dim() == 0 ? out.reshape({}) : out;
  });
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw_error(ErrorKind::Value, "cat(): expected a non-empty list of Tensors");
  // Legacy rule kept by PyTorch: 1-D empty tensors are skipped whatever
  // the other shapes are.
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(t);
  }
  if (parts.empty()) return tensors[0].clone();
  const Tensor& first = parts[0];
  if (first.dim() == 0) throw_error(ErrorKind::Runtime, "cat(): zero-dimensional tensor cannot be concatenated");
  const int64_t d = normalize_dim(dim, first.dim(), "cat");
  DType dtype = first.dtype();
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& t = parts[i];
    if (t.dim() != first.dim()) {
      throw_error(ErrorKind::Runtime, "cat(): tensors must have the same number of dimensions: got " +
                                          std::to_string(first.dim()) + " and " + std::to_string(t.dim()) +
                                          " (tensor " + std::to_string(i) + ")");
    }
    for (int64_t k = 0; k < first.dim(); ++k) {
      if (k != d && t.sizes()[k] != first.sizes()[k]) {
        throw_error(ErrorKind::Runtime, "cat(): sizes of tensors must match except in dimension " + std::to_string(d) +
                                            ". Expected size " + std::to_string(first.sizes()[k]) + " but got size " +
                                            std::to_string(t.sizes()[k]) + " for tensor number " + std::to_string(i) +
                                            " in the list");
      }
    }
    if (t.device() != first.device()) {
      throw_error(ErrorKind::Runtime, "cat(): expected all tensors on the same device, got " + first.device().str() +
                                          " and " + t.device().str());
    }
    dtype = promote_types(dtype, t.dtype());
  }
  for (Tensor& t : parts) t = t.to(dtype);
  Tensor out;
  const ember_attr attrs[] = {dispatch::attr_int("dim", d)};
  dispatch::OpCall call;
  call.inputs = parts.data();
  call.num_inputs = static_cast<int64_t>(parts.size());
  call.outputs = &out;
  call.num_outputs = 1;
  call.attrs = attrs;
  call.num_attrs = 1;
  dispatch::call(dispatch::op(dispatch::OpId::Cat), call);
  return out;
}

}  // namespace ember
