#pragma once

#include <optional>
#include <string_view>

#include "ember/dim_vector.h"

namespace ember {

// Note [Checked size arithmetic]
// Sizes, strides and offsets are int64 values a user chooses, so a product
// or sum of them can wrap: a wrapped element count allocates a tiny storage
// that kernels then overrun, and a wrapped bound lets a view reach another
// tensor's memory. Every computation that sizes an allocation, bounds a view
// or derives a stride goes through the helpers below, which refuse with a
// RuntimeError (what PyTorch raises) instead of wrapping. A product with a
// zero factor is zero however large the others are.

// a * b and a + b, or nullopt when the exact result does not fit int64.
// Inline: every TensorImpl counts its elements with them.
inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}
inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// The number of elements of `sizes`; throws when it does not fit int64.
int64_t numel_of(IntArrayRef sizes);
// Row-major strides of `sizes`; throws when one does not fit int64.
DimVector contiguous_strides(IntArrayRef sizes);
// Whether a tensor of these sizes and strides fills its span exactly once:
// its strides, ordered, are the contiguous strides of its sizes in that
// order (a permutation of a contiguous tensor).
bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides);
// Elements from a strided window's first element to one past its last:
// 1 + sum((size - 1) * stride), 0 when it has no elements. Sizes and
// strides must not be negative; throws when the sum does not fit int64.
int64_t span_elements(IntArrayRef sizes, IntArrayRef strides);
// Bytes of a storage for a contiguous tensor of `sizes`, or for a strided
// one starting `offset` elements in; throws when they do not fit int64.
int64_t storage_nbytes(IntArrayRef sizes, size_t itemsize);
int64_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize);

// Wraps a negative dim; a 0-d tensor accepts dims -1 and 0 as PyTorch does.
// Throws IndexError naming the op when out of range.
int64_t normalize_dim(int64_t dim, int64_t rank, std::string_view op);
// Wraps, sorts and checks for repeats; empty stays empty.
DimVector normalize_dims(IntArrayRef dims, int64_t rank, std::string_view op);

// NumPy broadcasting; throws naming the op and both shapes.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, std::string_view op);
// Whether broadcast_shapes(a, b) succeeds.
bool broadcasts_together(IntArrayRef a, IntArrayRef b);
// Whether `from` expands to exactly `to` (what expand() accepts).
bool broadcasts_to(IntArrayRef from, IntArrayRef to);

// Resolves one -1 in `shape` against numel; throws on a mismatch.
DimVector infer_view_shape(IntArrayRef shape, int64_t numel, std::string_view op);

// Strides for viewing (sizes, strides) as new_sizes without copying, or
// nullopt when the memory layout cannot express it (PyTorch's rule: each run
// of merged dims must be contiguous within itself).
std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides,
                                      IntArrayRef new_sizes);

}  // namespace ember
