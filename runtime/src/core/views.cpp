// View ops: new metadata over the same storage, never a copy (except
// reshape, which copies when strides cannot express the new shape).
#include <algorithm>
#include <numeric>
#include <string>

#include "autograd/record.h"
#include "core/shape.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/tensor.h"

namespace ember {
namespace {

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>(base.impl()->storage(), base.dtype(), sizes, strides, offset);
  impl->set_view_base(base.impl_ptr());
  return Tensor(std::move(impl));
}

using Grads = std::vector<Tensor>;

// size * stride for a view's new stride (Note [Checked size arithmetic]).
int64_t checked_stride(int64_t size, int64_t stride, const char* op) {
  const std::optional<int64_t> product = checked_mul(size, stride);
  if (!product) {
    throw_error(ErrorKind::Runtime, std::string(op) + ": the stride " + std::to_string(size) + " * " +
                                        std::to_string(stride) + " does not fit in int64");
  }
  return *product;
}

// Views whose gradient is the incoming one laid back into the base's shape.
Tensor reshaping_view(const char* name, const Tensor& base, Tensor view) {
  if (!autograd::any_requires_grad({base})) return view;
  const DimVector sizes = base.sizes();
  return autograd::record_unary(name, base, std::move(view), [sizes](const Grads& g, const Grads&) {
    return Grads{g[0].reshape(sizes)};
  });
}

Tensor indexing_view(const char* name, const Tensor& base, Tensor view, int64_t dim, int64_t start, int64_t step,
                     bool keeps_dim) {
  if (!autograd::any_requires_grad({base})) return view;
  const DimVector sizes = base.sizes();
  const DType dtype = base.dtype();
  const int64_t count = keeps_dim ? view.sizes()[dim] : 1;
  return autograd::record_unary(name, base, std::move(view),
                                [sizes, dtype, dim, start, step, count, keeps_dim](const Grads& g, const Grads&) {
                                  const Tensor grad = keeps_dim ? g[0] : g[0].unsqueeze(dim);
                                  const Tensor index = arange(start, start + count * step, step, DType::Int64)
                                                           .to(grad.device());
                                  return Grads{autograd::place_along(grad, sizes, dtype, dim, index)};
                                });
}

}  // namespace

int64_t Tensor::size(int64_t dim) const { return sizes()[normalize_dim(dim, this->dim(), "size")]; }

int64_t Tensor::stride(int64_t dim) const { return strides()[normalize_dim(dim, this->dim(), "stride")]; }

Tensor Tensor::view(IntArrayRef shape) const {
  const DimVector new_sizes = infer_view_shape(shape, numel(), "view");
  auto strides_opt = view_strides(sizes(), strides(), new_sizes);
  if (!strides_opt) {
    throw_error(ErrorKind::Runtime,
                "view: size " + shape_str(new_sizes) + " is not compatible with input tensor's size " +
                    shape_str(sizes()) + " and stride " + shape_str(strides()) +
                    " (at least one dimension spans across two contiguous subspaces); use reshape instead");
  }
  return reshaping_view("ViewBackward0", *this, make_view(*this, new_sizes, *strides_opt, storage_offset()));
}

Tensor Tensor::reshape(IntArrayRef shape) const {
  const DimVector new_sizes = infer_view_shape(shape, numel(), "reshape");
  if (auto s = view_strides(sizes(), strides(), new_sizes)) {
    return reshaping_view("ViewBackward0", *this, make_view(*this, new_sizes, *s, storage_offset()));
  }
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
  DimVector new_sizes(dims.size());
  DimVector new_strides(dims.size());
  DimVector seen(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = normalize_dim(dims[i], dim(), "permute");
    if (seen[d]++)
      throw_error(ErrorKind::Runtime, "permute: repeated dim " + std::to_string(d) + " in " + shape_str(dims));
    new_sizes[i] = sizes()[d];
    new_strides[i] = strides()[d];
  }
  Tensor out = make_view(*this, new_sizes, new_strides, storage_offset());
  if (!autograd::any_requires_grad({*this})) return out;
  DimVector inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) inverse[normalize_dim(dims[i], dim(), "permute")] = static_cast<int64_t>(i);
  return autograd::record_unary("PermuteBackward0", *this, std::move(out), [inverse](const Grads& g, const Grads&) {
    return Grads{g[0].permute(inverse)};
  });
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  if (dim() == 0) return *this;
  const int64_t a = normalize_dim(dim0, dim(), "transpose");
  const int64_t b = normalize_dim(dim1, dim(), "transpose");
  DimVector new_sizes = sizes();
  DimVector new_strides = strides();
  std::swap(new_sizes[a], new_sizes[b]);
  std::swap(new_strides[a], new_strides[b]);
  return autograd::record_unary("TransposeBackward0", *this, make_view(*this, new_sizes, new_strides, storage_offset()),
                                [a, b](const Grads& g, const Grads&) { return Grads{g[0].transpose(a, b)}; });
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
  DimVector new_strides(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < lead) {
      if (shape[i] < 0)
        throw_error(ErrorKind::Runtime, "expand: -1 is not allowed in a leading, non-existing dimension");
      new_sizes[i] = shape[i];
      new_strides[i] = 0;
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
    new_strides[i] = old == want ? strides()[i - lead] : 0;
  }
  Tensor out = make_view(*this, new_sizes, new_strides, storage_offset());
  if (!autograd::any_requires_grad({*this})) return out;
  const DimVector base_sizes = sizes();
  return autograd::record_unary("ExpandBackward0", *this, std::move(out), [base_sizes](const Grads& g, const Grads&) {
    return Grads{autograd::sum_to(g[0], base_sizes)};
  });
}

Tensor Tensor::squeeze() const {
  DimVector new_sizes;
  DimVector new_strides;
  for (int64_t d = 0; d < dim(); ++d) {
    if (sizes()[d] == 1) continue;
    new_sizes.push_back(sizes()[d]);
    new_strides.push_back(strides()[d]);
  }
  return reshaping_view("SqueezeBackward0", *this, make_view(*this, new_sizes, new_strides, storage_offset()));
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) return *this;
  const int64_t n = normalize_dim(d, dim(), "squeeze");
  if (sizes()[n] != 1) return *this;
  DimVector new_sizes = sizes();
  DimVector new_strides = strides();
  new_sizes.erase(n);
  new_strides.erase(n);
  return reshaping_view("SqueezeBackward0", *this, make_view(*this, new_sizes, new_strides, storage_offset()));
}

Tensor Tensor::unsqueeze(int64_t d) const {
  const int64_t n = normalize_dim(d, dim() + 1, "unsqueeze");
  DimVector new_sizes = sizes();
  DimVector new_strides = strides();
  const int64_t stride = n < dim() ? checked_stride(sizes()[n], strides()[n], "unsqueeze") : 1;
  new_sizes.insert(n, 1);
  new_strides.insert(n, stride);
  return reshaping_view("UnsqueezeBackward0", *this, make_view(*this, new_sizes, new_strides, storage_offset()));
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
  DimVector new_sizes = sizes();
  DimVector new_strides = strides();
  // ceil((e - s) / step) without forming e - s + step, which wraps for a huge step.
  new_sizes[n] = e == s ? 0 : (e - s - 1) / step + 1;
  // A dim of one element never moves by its stride, so a step too large to
  // scale the stride by only matters when two or more elements remain.
  if (new_sizes[n] > 1) new_strides[n] = checked_stride(step, strides()[n], "slice");
  const int64_t offset = new_sizes[n] == 0 ? storage_offset() : storage_offset() + s * strides()[n];
  return indexing_view("SliceBackward0", *this, make_view(*this, new_sizes, new_strides, offset), n, s, step, true);
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
  const int64_t i = index < 0 ? index + size : index;
  DimVector new_sizes = sizes();
  DimVector new_strides = strides();
  new_sizes.erase(n);
  new_strides.erase(n);
  return indexing_view("SelectBackward0", *this, make_view(*this, new_sizes, new_strides, storage_offset() + i * strides()[n]),
                       n, i, 1, false);
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
  Tensor out = make_view(*this, new_sizes, new_strides, off);
  if (!autograd::any_requires_grad({*this})) return out;
  const DimVector base_sizes = sizes();
  const DimVector base_strides = strides();
  const int64_t base_offset = storage_offset();
  const DimVector view_sizes(new_sizes);
  const DimVector view_strides_copy(new_strides);
  const int64_t storage_elements = static_cast<int64_t>(impl()->storage()->nbytes() / element_size());
  // Both the base and the view address one storage: add the gradient into a
  // flat image of that storage at the view's offsets (overlaps accumulate),
  // then read the base's elements back out of it.
  return autograd::record_unary(
      "AsStridedBackward0", *this, std::move(out),
      [base_sizes, base_strides, base_offset, view_sizes, view_strides_copy, off, storage_elements](
          const Grads& g, const Grads&) {
        const TensorOptions index_options(DType::Int64, g[0].device());
        const Tensor positions = arange(storage_elements, index_options);
        const Tensor view_positions = positions.as_strided(view_sizes, view_strides_copy, off).reshape({-1});
        const Tensor flat = scatter_add(zeros({storage_elements}, TensorOptions(g[0].dtype(), g[0].device())), 0,
                                        view_positions, g[0].reshape({-1}));
        return Grads{flat.as_strided(base_sizes, base_strides, base_offset).clone()};
      });
}

}  // namespace ember
