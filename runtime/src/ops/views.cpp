// View ops: new metadata over the same storage, never a copy (except
// reshape, which copies when strides cannot express the new shape). Each
// public function validates and normalises its arguments, then dispatches
// the catalogue's view op (Note [Dispatch steps]): its meta function gives
// the layout, the Autograd step records it like any op.
#include <algorithm>
#include <string>

#include "autograd/record.h"
#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/tensor.h"

namespace ember {
namespace {

using dispatch::attr_int;
using dispatch::attr_ints;
using dispatch::OpId;

Tensor view_op(OpId id, const Tensor& base, std::initializer_list<ember_attr> attrs) {
  return dispatch::call_unary(dispatch::op(id), base, attrs);
}

// The meta function will form size * stride as a view's new stride: it must
// fit in int64 (Note [Checked size arithmetic]).
void check_stride_fits(int64_t size, int64_t stride, const char* op) {
  if (!checked_mul(size, stride)) {
    throw_error(ErrorKind::Runtime, std::string(op) + ": the stride " + std::to_string(size) + " * " +
                                        std::to_string(stride) + " does not fit in int64");
  }
}

}  // namespace

int64_t Tensor::size(int64_t dim) const { return sizes()[normalize_dim(dim, this->dim(), "size")]; }

int64_t Tensor::stride(int64_t dim) const { return strides()[normalize_dim(dim, this->dim(), "stride")]; }

Tensor Tensor::view(IntArrayRef shape) const {
  const DimVector new_sizes = infer_view_shape(shape, numel(), "view");
  // Whether the strides can express the shape is the meta function's check.
  return view_op(OpId::View, *this, {attr_ints("sizes", new_sizes)});
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  const DimVector new_sizes = infer_view_shape(shape, numel(), "reshape");
  if (view_strides(sizes(), strides(), new_sizes)) return view_op(OpId::View, *this, {attr_ints("sizes", new_sizes)});
  return clone().view(new_sizes);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  const int64_t start = normalize_dim(start_dim, dim(), "flatten");
  const int64_t end = normalize_dim(end_dim, dim(), "flatten");
  if (start > end) throw_error(ErrorKind::Runtime, "flatten: start_dim cannot come after end_dim");
  DimVector shape;
  for (int64_t d = 0; d < start; ++d) shape.push_back(sizes()[d]);
  int64_t merged = 1;
  for (int64_t d = start; d <= end; ++d) merged *= sizes()[d];
  shape.push_back(merged);
  for (int64_t d = end + 1; d < dim(); ++d) shape.push_back(sizes()[d]);
  return reshape(shape);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  if (static_cast<int64_t>(dims.size()) != dim()) {
    throw_error(ErrorKind::Runtime, "permute: number of dims " + std::to_string(dims.size()) +
                                        " does not match the tensor's " + std::to_string(dim()) + " dims");
  }
  DimVector normalized(dims.size());
  DimVector seen(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = normalize_dim(dims[i], dim(), "permute");
    if (seen[d]++)
      throw_error(ErrorKind::Runtime, "permute: repeated dim " + std::to_string(d) + " in " + shape_str(dims));
    normalized[i] = d;
  }
  return view_op(OpId::Permute, *this, {attr_ints("dims", normalized)});
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  if (dim() == 0) return *this;
  const int64_t a = normalize_dim(dim0, dim(), "transpose");
  const int64_t b = normalize_dim(dim1, dim(), "transpose");
  return view_op(OpId::Transpose, *this, {attr_int("dim0", a), attr_int("dim1", b)});
}

Tensor Tensor::t() const {
  if (dim() > 2)
    throw_error(ErrorKind::Runtime, "t() expects a tensor with <= 2 dimensions, but got " + std::to_string(dim()));
  return dim() < 2 ? *this : autograd::name_history(transpose(0, 1), "TBackward0");
}

Tensor Tensor::expand(IntArrayRef shape) const {
  if (shape.size() < sizes().size()) {
    throw_error(ErrorKind::Runtime, "expand: the number of sizes provided (" + std::to_string(shape.size()) +
                                        ") must be greater or equal to the number of dimensions in the tensor (" +
                                        std::to_string(dim()) + ")");
  }
  if (std::equal(shape.begin(), shape.end(), sizes().begin(), sizes().end())) return *this;
  const size_t lead = shape.size() - sizes().size();
  DimVector new_sizes(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < lead) {
      if (shape[i] < 0)
        throw_error(ErrorKind::Runtime, "expand: -1 is not allowed in a leading, non-existing dimension");
      new_sizes[i] = shape[i];
      continue;
    }
    const int64_t old = sizes()[i - lead];
    const int64_t want = shape[i] == -1 ? old : shape[i];
    if ((old != want && old != 1) || want < 0) {
      throw_error(ErrorKind::Runtime, "expand: the expanded size of the tensor (" + std::to_string(want) +
                                          ") must match the existing size (" + std::to_string(old) +
                                          ") at non-singleton dimension " + std::to_string(i) + ".  Target sizes: " +
                                          shape_str(shape) + ".  Tensor sizes: " + shape_str(sizes()));
    }
    new_sizes[i] = want;
  }
  return view_op(OpId::Expand, *this, {attr_ints("sizes", new_sizes)});
}

Tensor Tensor::squeeze() const {
  DimVector dims;
  for (int64_t d = 0; d < dim(); ++d) {
    if (sizes()[d] == 1) dims.push_back(d);
  }
  return view_op(OpId::Squeeze, *this, {attr_ints("dims", dims)});
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) return *this;
  const int64_t n = normalize_dim(d, dim(), "squeeze");
  if (sizes()[n] != 1) return *this;
  const int64_t dims[] = {n};
  return view_op(OpId::Squeeze, *this, {attr_ints("dims", dims)});
}

Tensor Tensor::unsqueeze(int64_t d) const {
  const int64_t n = normalize_dim(d, dim() + 1, "unsqueeze");
  if (n < dim()) check_stride_fits(sizes()[n], strides()[n], "unsqueeze");
  return view_op(OpId::Unsqueeze, *this, {attr_int("dim", n)});
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  if (dim() == 0) throw_error(ErrorKind::Index, "slice() cannot be applied to a 0-dim tensor.");
  if (step <= 0) throw_error(ErrorKind::Value, "slice: step must be positive, got " + std::to_string(step));
  const int64_t n = normalize_dim(d, dim(), "slice");
  const int64_t size = sizes()[n];
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  const int64_t s = start ? clamp(*start) : 0;
  const int64_t e = std::max(s, end ? clamp(*end) : size);
  // A dim of one element never moves by its stride, so a step too large to
  // scale the stride by only matters when two or more elements remain.
  if (e != s && (e - s - 1) / step + 1 > 1) check_stride_fits(step, strides()[n], "slice");
  return view_op(OpId::Slice, *this,
                 {attr_int("dim", n), attr_int("start", s), attr_int("end", e), attr_int("step", step)});
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  if (dim() == 0) throw_error(ErrorKind::Index, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t n = normalize_dim(d, dim(), "narrow");
  const int64_t size = sizes()[n];
  if (start < -size || start > size) {
    throw_error(ErrorKind::Index, "narrow: start out of range (expected to be in range of [" + std::to_string(-size) +
                                      ", " + std::to_string(size) + "], but got " + std::to_string(start) + ")");
  }
  if (length < 0) throw_error(ErrorKind::Runtime, "narrow: length must be non-negative, got " + std::to_string(length));
  const int64_t s = start < 0 ? start + size : start;
  // length > size - s rather than s + length > size, which wraps for a huge length.
  if (length > size - s) {
    throw_error(ErrorKind::Runtime, "narrow: start (" + std::to_string(start) + ") + length (" +
                                        std::to_string(length) + ") exceeds dimension size (" + std::to_string(size) +
                                        ")");
  }
  return slice(n, s, s + length);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  if (dim() == 0) throw_error(ErrorKind::Index, "select() cannot be applied to a 0-dim tensor.");
  const int64_t n = normalize_dim(d, dim(), "select");
  const int64_t size = sizes()[n];
  if (index < -size || index >= size) {
    throw_error(ErrorKind::Index, "select: index " + std::to_string(index) + " out of range for tensor of size " +
                                      shape_str(sizes()) + " at dimension " + std::to_string(n));
  }
  return view_op(OpId::Select, *this, {attr_int("dim", n), attr_int("index", index < 0 ? index + size : index)});
}

Tensor Tensor::as_strided(IntArrayRef new_sizes, IntArrayRef new_strides, std::optional<int64_t> offset) const {
  if (new_sizes.size() != new_strides.size()) {
    throw_error(ErrorKind::Runtime, "as_strided: mismatch in length of strides and shape: sizes " +
                                        shape_str(new_sizes) + ", strides " + shape_str(new_strides));
  }
  const int64_t off = offset.value_or(storage_offset());
  if (off < 0) throw_error(ErrorKind::Runtime, "as_strided: negative storage offset " + std::to_string(off));
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    if (new_sizes[i] < 0 || new_strides[i] < 0) {
      throw_error(ErrorKind::Runtime, "as_strided: negative sizes or strides are not supported, got sizes " +
                                          shape_str(new_sizes) + ", strides " + shape_str(new_strides));
    }
  }
  // Checked: a wrapped bound would let the view reach past its storage
  // (Note [Checked size arithmetic]).
  const int64_t needed = storage_nbytes(new_sizes, new_strides, off, element_size());
  const auto available = static_cast<int64_t>(impl()->storage()->nbytes());
  if (needed > available) {
    throw_error(ErrorKind::Runtime, "as_strided: setStorage: sizes " + shape_str(new_sizes) + ", strides " +
                                        shape_str(new_strides) + " and storage offset " + std::to_string(off) +
                                        " require a storage of " + std::to_string(needed / element_size()) +
                                        " elements, but it has only " +
                                        std::to_string(available / static_cast<int64_t>(element_size())));
  }
  return view_op(OpId::AsStrided, *this,
                 {attr_ints("sizes", new_sizes), attr_ints("strides", new_strides), attr_int("storage_offset", off)});
}

}  // namespace ember
