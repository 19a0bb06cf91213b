// Selection, joining and reordering: masked_fill, where with scalars, stack,
// split/chunk, flip, roll, tril/triu and one_hot, over views, cat, where and
// index_select.
#include <optional>
#include <string>
#include <vector>

#include "autograd/record.h"
#include "ember/autograd.h"
#include "ops/composite/common.h"

namespace ember {
namespace {

// Keeps elements on or below (tril) / on or above (triu) the diagonal: the
// mask compares column minus row indices, so no element is read on the host.
Tensor triangle(std::string_view op, const Tensor& x, int64_t diagonal, bool lower) {
  if (x.dim() < 2) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): input tensor must have at least 2 dimensions, got shape " +
                                        shape_str(x.sizes()));
  }
  const TensorOptions index_options(DType::Int64, x.device());
  const Tensor rows = arange(x.size(-2), index_options).unsqueeze(1);
  const Tensor cols = arange(x.size(-1), index_options).unsqueeze(0);
  const Tensor offset = cols - rows;
  return masked_fill(x, lower ? gt(offset, diagonal) : lt(offset, diagonal), 0);
}

// Note [Split records one node]
// The pieces of split and chunk are narrow views of x, but their history is
// one node for all of them, as PyTorch's SplitBackward0 is: its backward
// lays the pieces' gradients side by side in one cat (zeros for a piece that
// got none). A slice node per piece would give each gradient zeros around it
// in a cat of its own, and the engine would then add those full-sized
// gradients up: three cats and two adds over the whole of x for q, k, v.
// The pieces are made without recording (each would otherwise get a slice
// node) and then given the split node; they stay views of x, so writes into
// them reach x's history as any view's do (Note [In-place writes through
// views]).
std::vector<Tensor> split_into_pieces(const Tensor& x, IntArrayRef split_sizes, int64_t d, const char* node_name) {
  if (x.dim() == 0) throw_error(ErrorKind::Runtime, "split(): cannot split a 0-d tensor");
  const bool record = autograd::any_requires_grad({x});
  std::vector<Tensor> pieces;
  pieces.reserve(split_sizes.size());
  {
    std::optional<autograd::NoGradGuard> unrecorded;
    if (record) unrecorded.emplace();
    int64_t start = 0;
    for (int64_t s : split_sizes) {
      pieces.push_back(x.narrow(d, start, s));
      start += s;
    }
  }
  if (!record) return pieces;
  std::vector<DimVector> piece_sizes;
  piece_sizes.reserve(pieces.size());
  for (const Tensor& piece : pieces) piece_sizes.push_back(piece.sizes());
  const TensorOptions options(x.dtype(), x.device());
  auto backward = [piece_sizes, options, d](const std::vector<Tensor>& grads, const std::vector<Tensor>&) {
    std::vector<Tensor> parts;
    parts.reserve(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) {
      parts.push_back(grads[i].defined() ? grads[i] : zeros(piece_sizes[i], options));
    }
    return std::vector<Tensor>{parts.size() == 1 ? parts[0] : cat(parts, d)};
  };
  auto node = autograd::make_function_node(node_name, &x, 1, static_cast<int64_t>(pieces.size()), {},
                                           std::move(backward));
  autograd::set_history(node, pieces.data(), static_cast<int64_t>(pieces.size()));
  return pieces;
}

}  // namespace

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  if (mask.dtype() != DType::Bool) {
    throw_error(ErrorKind::Runtime, "masked_fill(): expected a bool mask, but got dtype " + composite::dtype_str(mask));
  }
  if (broadcast_shapes(x.sizes(), mask.sizes(), "masked_fill") != x.sizes()) {
    throw_error(ErrorKind::Runtime, "masked_fill(): mask " + shape_str(mask.sizes()) +
                                        " must broadcast to the input shape " + shape_str(x.sizes()));
  }
  return where(mask, composite::scalar_like(x, value), x);
}

Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  return where(cond, composite::scalar_fitting(b, a, "where"), b);
}
Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  return where(cond, a, composite::scalar_fitting(a, b, "where"));
}
Tensor where(const Tensor& cond, const Scalar& a, const Scalar& b) {
  return where(cond, composite::scalar_on(cond, a), composite::scalar_on(cond, b));
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw_error(ErrorKind::Runtime, "stack(): expected a non-empty list of Tensors");
  const int64_t d = normalize_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].sizes() != tensors[0].sizes()) {
      throw_error(ErrorKind::Runtime, "stack(): expects each tensor to be equal size, but got " +
                                          shape_str(tensors[0].sizes()) + " at entry 0 and " +
                                          shape_str(tensors[i].sizes()) + " at entry " + std::to_string(i));
    }
    parts.push_back(tensors[i].unsqueeze(d));
  }
  return cat(parts, d);
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  const int64_t d = normalize_dim(dim, x.dim(), "split");
  const int64_t size = x.dim() == 0 ? 1 : x.size(d);
  if (split_size < 0 || (split_size == 0 && size != 0)) {
    throw_error(ErrorKind::Runtime, "split(): split_size can only be 0 if dimension size is 0, but got split_size " +
                                        std::to_string(split_size) + " for input " + shape_str(x.sizes()));
  }
  if (size == 0) return {x};
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < size; start += split_size) sizes.push_back(std::min(split_size, size - start));
  return split_into_pieces(x, sizes, d, "SplitBackward0");
}

std::vector<Tensor> split(const Tensor& x, IntArrayRef split_sizes, int64_t dim) {
  const int64_t d = normalize_dim(dim, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : split_sizes) total += s;
  if (total != x.size(d) || std::any_of(split_sizes.begin(), split_sizes.end(), [](int64_t s) { return s < 0; })) {
    throw_error(ErrorKind::Runtime, "split(): split_sizes " + shape_str(split_sizes) +
                                        " must be non-negative and sum to " + std::to_string(x.size(d)) + " (dim " +
                                        std::to_string(d) + " of " + shape_str(x.sizes()) + ")");
  }
  return split_into_pieces(x, split_sizes, d, "SplitWithSizesBackward0");
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  if (chunks <= 0)
    throw_error(ErrorKind::Runtime, "chunk(): chunks must be greater than 0, got " + std::to_string(chunks));
  const int64_t d = normalize_dim(dim, x.dim(), "chunk");
  if (x.dim() == 0) throw_error(ErrorKind::Runtime, "chunk(): cannot chunk a 0-d tensor");
  return split(x, std::max<int64_t>(1, (x.size(d) + chunks - 1) / chunks), d);
}

Tensor flip(const Tensor& x, IntArrayRef dims) {
  Tensor out = x;
  for (int64_t d : normalize_dims(dims, x.dim(), "flip")) {
    if (x.dim() == 0) break;
    const int64_t n = x.size(d);
    out = index_select(out, d, arange(n - 1, -1, -1, TensorOptions(DType::Int64, x.device())));
  }
  return out;
}

Tensor roll(const Tensor& x, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    if (shifts.size() != 1) {
      throw_error(ErrorKind::Runtime, "roll(): without dims, shifts must have one value, got " + shape_str(shifts));
    }
    const int64_t flat_dim[] = {0};
    return roll(x.flatten(), shifts, flat_dim).view(x.sizes());
  }
  if (shifts.size() != dims.size()) {
    throw_error(ErrorKind::Runtime,
                "roll(): shifts " + shape_str(shifts) + " and dims " + shape_str(dims) + " must have the same length");
  }
  Tensor out = x;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = normalize_dim(dims[i], x.dim(), "roll");
    const int64_t n = x.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s != 0) out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out;
}

Tensor tril(const Tensor& x, int64_t diagonal) { return triangle("tril", x, diagonal, true); }
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle("triu", x, diagonal, false); }

Tensor one_hot(const Tensor& indices, int64_t num_classes) {
  if (indices.dtype() != DType::Int64) {
    throw_error(ErrorKind::Runtime,
                "one_hot(): is only applicable to index tensors of dtype int64, got " + composite::dtype_str(indices));
  }
  // Class values must be known on the host to size or check the result;
  // PyTorch reads them too. A meta tensor has no values to check.
  if (!indices.device().is_meta() && indices.numel() > 0) {
    const int64_t lowest = amin(indices).item<int64_t>();
    const int64_t highest = amax(indices).item<int64_t>();
    if (lowest < 0)
      throw_error(ErrorKind::Runtime, "one_hot(): class values must be non-negative, got " + std::to_string(lowest));
    if (num_classes == -1) num_classes = highest + 1;
    if (highest >= num_classes) {
      throw_error(ErrorKind::Runtime, "one_hot(): class value " + std::to_string(highest) +
                                          " is out of range for num_classes " + std::to_string(num_classes));
    }
  }
  if (num_classes < 0) {
    throw_error(ErrorKind::Runtime,
                "one_hot(): num_classes must be given for an empty or meta input, got " + std::to_string(num_classes));
  }
  const Tensor classes = arange(num_classes, TensorOptions(DType::Int64, indices.device()));
  return eq(indices.unsqueeze(-1), classes).to(DType::Int64);
}

}  // namespace ember
