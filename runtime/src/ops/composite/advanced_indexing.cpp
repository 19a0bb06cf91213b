// Advanced indexing (x[idx] and x[idx] = v with tensor indices), built on
// index_select and scatter_add over a view of x whose indexed dims are
// flattened into one. Every step is a public op, so the result is
// differentiable and needs no kernel of its own.
#include <numeric>
#include <string>

#include "core/memory_overlap.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

// x with its indexed dims moved to the front and flattened into one, plus
// the flat row each broadcast index tuple selects.
struct FlatIndex {
  DimVector indexed_dims;    // positions in x of the index tensors
  DimVector permutation;     // indexed dims first, then the rest in order
  DimVector index_shape;     // broadcast shape of the index tensors
  DimVector rest_sizes;      // sizes of the dims not indexed
  Tensor rows;               // int64 [numel(index_shape)] rows of the flat view
  int64_t num_rows = 1;      // product of the indexed dims' sizes
  // PyTorch's placement rule: adjacent indexed dims put the index dims where
  // the first of them was; otherwise the index dims go first.
  int64_t result_position = 0;
};

Tensor as_index(std::string_view op, const Tensor& index) {
  if (index.dtype() == DType::Int64) return index;
  if (!is_integral(index.dtype(), /*include_bool=*/false)) {
    throw_error(ErrorKind::Index, std::string(op) + "(): tensors used as indices must be integer or bool tensors, got dtype " +
                                      composite::dtype_str(index));
  }
  return index.to(DType::Int64);
}

// A bool mask over k dims stands for the k coordinate columns of its nonzero
// elements, as in PyTorch.
std::vector<std::optional<Tensor>> expand_masks(std::string_view op, const Tensor& x,
                                                const std::vector<std::optional<Tensor>>& indices) {
  std::vector<std::optional<Tensor>> out;
  for (const auto& index : indices) {
    if (!index || index->dtype() != DType::Bool) {
      out.push_back(index ? std::optional<Tensor>(as_index(op, *index)) : std::nullopt);
      continue;
    }
    const int64_t first = static_cast<int64_t>(out.size());
    for (int64_t d = 0; d < index->dim(); ++d) {
      if (first + d >= x.dim() || index->size(d) != x.size(first + d)) {
        throw_error(ErrorKind::Index, std::string(op) + "(): the shape of the mask " + shape_str(index->sizes()) +
                                          " at index " + std::to_string(first) +
                                          " does not match the shape of the indexed tensor " + shape_str(x.sizes()));
      }
    }
    const Tensor coords = nonzero(*index);
    for (int64_t d = 0; d < index->dim(); ++d) out.push_back(coords.select(1, d));
  }
  return out;
}

// Negative indices count from the end; anything outside [-size, size) is an
// IndexError naming the value and the dim.
Tensor wrap_and_check(std::string_view op, const Tensor& index, int64_t dim, int64_t size) {
  if (index.numel() == 0) return index;
  const int64_t lowest = min(index).item<int64_t>();
  const int64_t highest = max(index).item<int64_t>();
  if (lowest < -size || highest >= size) {
    const int64_t bad = lowest < -size ? lowest : highest;
    throw_error(ErrorKind::Index, std::string(op) + "(): index " + std::to_string(bad) +
                                      " is out of bounds for dimension " + std::to_string(dim) + " with size " +
                                      std::to_string(size));
  }
  return lowest < 0 ? index + lt(index, 0).to(DType::Int64) * size : index;
}

FlatIndex flatten_indices(std::string_view op, const Tensor& x, const std::vector<std::optional<Tensor>>& given) {
  const auto indices = expand_masks(op, x, given);
  if (static_cast<int64_t>(indices.size()) > x.dim()) {
    throw_error(ErrorKind::Index, std::string(op) + "(): too many indices for tensor of dimension " +
                                      std::to_string(x.dim()) + " (got " + std::to_string(indices.size()) + ")");
  }
  FlatIndex f;
  for (int64_t d = 0; d < static_cast<int64_t>(indices.size()); ++d) {
    if (!indices[d]) continue;
    if (indices[d]->device() != x.device()) {
      throw_error(ErrorKind::Runtime, std::string(op) + "(): indices on " + indices[d]->device().str() +
                                          " cannot index a tensor on " + x.device().str());
    }
    if (!f.indexed_dims.empty() && !broadcasts_together(f.index_shape, indices[d]->sizes())) {
      throw_error(ErrorKind::Index, std::string(op) +
                                        "(): shape mismatch: indexing tensors could not be broadcast "
                                        "together with shapes " +
                                        shape_str(f.index_shape) + ", " + shape_str(indices[d]->sizes()));
    }
    f.index_shape = f.indexed_dims.empty() ? indices[d]->sizes()
                                           : broadcast_shapes(f.index_shape, indices[d]->sizes(), op);
    f.indexed_dims.push_back(d);
  }
  if (f.indexed_dims.empty()) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected at least one index tensor");
  }
  f.permutation = f.indexed_dims;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (std::find(f.indexed_dims.begin(), f.indexed_dims.end(), d) == f.indexed_dims.end()) {
      f.permutation.push_back(d);
      f.rest_sizes.push_back(x.size(d));
    }
  }
  const bool adjacent = f.indexed_dims.back() - f.indexed_dims[0] + 1 ==
                        static_cast<int64_t>(f.indexed_dims.size());
  f.result_position = adjacent ? f.indexed_dims[0] : 0;
  // Row-major combination of the per-dim indices: the last indexed dim varies fastest.
  Tensor rows;
  for (int64_t d : f.indexed_dims) {
    const Tensor index = wrap_and_check(op, *indices[d], d, x.size(d)).expand(f.index_shape);
    rows = rows.defined() ? rows * x.size(d) + index : index;
    f.num_rows *= x.size(d);
  }
  f.rows = rows.reshape({-1});
  return f;
}

// `leading` followed by the sizes of the dims that are not indexed.
DimVector followed_by_rest(DimVector leading, const FlatIndex& f) {
  for (int64_t s : f.rest_sizes) leading.push_back(s);
  return leading;
}

Tensor flat_view(const Tensor& x, const FlatIndex& f) {
  return x.permute(f.permutation).reshape(followed_by_rest({f.num_rows}, f));
}

// The permutation that undoes `order`.
DimVector inverse_of(IntArrayRef order) {
  DimVector back(order.size());
  for (size_t i = 0; i < order.size(); ++i) back[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
  return back;
}

// [index dims..., rest...] -> the result layout, or back with `inverse`.
DimVector result_permutation(const FlatIndex& f, bool inverse) {
  const int64_t b = static_cast<int64_t>(f.index_shape.size());
  const int64_t r = static_cast<int64_t>(f.rest_sizes.size());
  DimVector order;
  for (int64_t i = 0; i < f.result_position; ++i) order.push_back(b + i);
  for (int64_t i = 0; i < b; ++i) order.push_back(i);
  for (int64_t i = f.result_position; i < r; ++i) order.push_back(b + i);
  return inverse ? inverse_of(order) : order;
}

DimVector result_shape(const FlatIndex& f) {
  const DimVector shape = followed_by_rest(f.index_shape, f);
  DimVector out;
  for (int64_t d : result_permutation(f, false)) out.push_back(shape[static_cast<size_t>(d)]);
  return out;
}

// rows as an index for scatter_add over [rows, rest...] operands.
Tensor rows_for(const FlatIndex& f, IntArrayRef operand_shape) {
  DimVector shape(operand_shape.size(), 1);
  shape[0] = f.rows.numel();
  return f.rows.reshape(shape).expand(operand_shape);
}

// Only the last write to a repeated row takes effect (PyTorch leaves the
// winner unspecified; the CPU answer is the last one).
Tensor last_occurrence_mask(const Tensor& rows) {
  const int64_t n = rows.numel();
  const ValuesIndices sorted = sort(rows, 0, false, /*stable=*/true);
  const Tensor next_differs = cat({ne(sorted.values.slice(0, 0, n - 1), sorted.values.slice(0, 1, n)),
                                   ones({1}, TensorOptions(DType::Bool, rows.device()))},
                                  0);
  return gt(scatter_add(zeros({n}, TensorOptions(DType::Int64, rows.device())), 0, sorted.indices,
                        next_differs.to(DType::Int64)),
            0);
}

}  // namespace

// The set positions, in order, without a sort: an inclusive count of the
// set elements ranks each, and each position is added into the slot of its
// rank; the unset ones all go to one extra slot, dropped after.
Tensor nonzero(const Tensor& x) {
  const TensorOptions index_options(DType::Int64, x.device());
  const Tensor set = ne(x.reshape({-1}), 0);
  const int64_t n = set.numel();
  const Tensor rank = cumsum(set, 0, DType::Int64);
  const int64_t count = n == 0 ? 0 : rank.select(0, n - 1).item<int64_t>();
  Tensor position = scatter_add(zeros({count + 1}, index_options), 0, where(set, rank - 1, Scalar(count)),
                                arange(n, index_options))
                        .slice(0, 0, count);
  std::vector<Tensor> coords(static_cast<size_t>(x.dim()));
  for (int64_t d = x.dim() - 1; d >= 0; --d) {
    coords[static_cast<size_t>(d)] = remainder(position, scalar_tensor(x.size(d), index_options)).unsqueeze(1);
    position = floor_divide(position, scalar_tensor(x.size(d), index_options));
  }
  if (coords.empty()) return zeros({count, 0}, index_options);
  return cat(coords, 1);
}

Tensor index(const Tensor& x, const std::vector<std::optional<Tensor>>& indices) {
  const FlatIndex f = flatten_indices("index", x, indices);
  return index_select(flat_view(x, f), 0, f.rows)
      .reshape(followed_by_rest(f.index_shape, f)).permute(result_permutation(f, false));
}

Tensor index_put(const Tensor& x, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                 bool accumulate) {
  const FlatIndex f = flatten_indices("index_put", x, indices);
  const DimVector target = result_shape(f);
  if (!broadcasts_to(values.sizes(), target)) {
    throw_error(ErrorKind::Runtime, "index_put(): shape mismatch: value tensor of shape " + shape_str(values.sizes()) +
                                        " cannot be broadcast to indexing result of shape " + shape_str(target));
  }
  if (values.device() != x.device()) {
    throw_error(ErrorKind::Runtime, "index_put(): values on " + values.device().str() + " cannot be written into a tensor on " +
                                        x.device().str());
  }
  const Tensor flat = flat_view(x, f);
  const DimVector source_shape = followed_by_rest({f.rows.numel()}, f);
  const Tensor source =
      values.to(x.dtype()).expand(target).permute(result_permutation(f, true)).reshape(source_shape);
  const Tensor rows = rows_for(f, source_shape);
  Tensor updated;
  if (accumulate) {
    updated = scatter_add(flat, 0, rows, source);
  } else if (f.rows.numel() == 0) {
    updated = flat;
  } else {
    DimVector mask_shape(source_shape.size(), 1);
    mask_shape[0] = f.rows.numel();
    const Tensor keep = last_occurrence_mask(f.rows).reshape(mask_shape);
    const Tensor written = scatter_add(zeros_like(flat), 0, rows, where(keep, source, zeros_like(source)));
    DimVector row_shape(source_shape.size(), 1);
    row_shape[0] = f.num_rows;
    const Tensor touched =
        gt(scatter_add(zeros({f.num_rows}, TensorOptions(DType::Int64, x.device())), 0, f.rows, ones_like(f.rows)), 0);
    updated = where(touched.reshape(row_shape), written, flat);
  }
  DimVector permuted_sizes;
  for (int64_t d : f.permutation) permuted_sizes.push_back(x.size(d));
  return updated.reshape(permuted_sizes).permute(inverse_of(f.permutation));
}

Tensor& index_put_(Tensor& x, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate) {
  // PyTorch only warns here, and which write lands is then up to the kernel.
  check_no_internal_overlap(x, "index_put_");
  const Tensor updated = index_put(x, indices, values, accumulate);
  x.copy_(updated);
  return x;
}

}  // namespace ember
