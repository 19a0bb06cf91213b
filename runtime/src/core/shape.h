#pragma once

#include <optional>
#include <string_view>

#include "ember/dim_vector.h"

namespace ember {

int64_t numel_of(IntArrayRef sizes);
DimVector contiguous_strides(IntArrayRef sizes);

// Wraps a negative dim; a 0-d tensor accepts dims -1 and 0 as PyTorch does.
// Throws IndexError naming the op when out of range.
int64_t normalize_dim(int64_t dim, int64_t rank, std::string_view op);
// Wraps, sorts and checks for repeats; empty stays empty.
DimVector normalize_dims(IntArrayRef dims, int64_t rank, std::string_view op);

// NumPy broadcasting; throws naming the op and both shapes.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, std::string_view op);
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
