#include "core/shape.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>

#include "ember/error.h"

namespace ember {



namespace {

// The product of `sizes`, or nullopt when it overflows (Note [Checked size arithmetic]).
std::optional<int64_t> checked_product(IntArrayRef sizes) {
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return 0;
  std::optional<int64_t> n = 1;
  for (int64_t s : sizes) {
    n = checked_mul(*n, s);
    if (!n) return std::nullopt;
  }
  return n;
}

[[noreturn]] void throw_storage_overflow(IntArrayRef sizes, const IntArrayRef* strides) {
  throw_error(ErrorKind::Runtime, "Storage size calculation overflowed with sizes=" + shape_str(sizes) +
                                      (strides ? " and strides=" + shape_str(*strides) : std::string()) +
                                      ": the tensor would need more than 2^63 - 1 bytes");
}

}  // namespace

int64_t numel_of(IntArrayRef sizes) {
  const std::optional<int64_t> n = checked_product(sizes);
  if (!n) {
    throw_error(ErrorKind::Runtime, "numel: integer multiplication overflow: the sizes " + shape_str(sizes) +
                                        " hold more than 2^63 - 1 elements");
  }
  return *n;
}

bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
  std::array<size_t, kMaxDims> dims{};
  size_t rank = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1) dims[rank++] = d;
  }
  std::sort(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(rank),
            [&strides](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (strides[dims[i]] != expected) return false;
    expected *= sizes[dims[i]];
  }
  return true;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  std::optional<int64_t> running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = *running;
    if (i == 0) break;
    running = checked_mul(*running, std::max<int64_t>(sizes[i], 1));
    if (!running) {
      throw_error(ErrorKind::Runtime, "Stride calculation overflowed with sizes=" + shape_str(sizes) +
                                          ": a row-major stride does not fit in int64");
    }
  }
  return strides;
}

int64_t span_elements(IntArrayRef sizes, IntArrayRef strides) {
  if (checked_product(sizes) == 0) return 0;
  std::optional<int64_t> last = 0;
  for (size_t i = 0; i < sizes.size() && last; ++i) {
    const std::optional<int64_t> reach = checked_mul(sizes[i] - 1, strides[i]);
    last = reach ? checked_add(*last, *reach) : std::nullopt;
  }
  if (last) last = checked_add(*last, 1);
  if (!last) throw_storage_overflow(sizes, &strides);
  return *last;
}

int64_t storage_nbytes(IntArrayRef sizes, size_t itemsize) {
  const std::optional<int64_t> n = checked_product(sizes);
  const std::optional<int64_t> bytes = n ? checked_mul(*n, static_cast<int64_t>(itemsize)) : std::nullopt;
  if (!bytes) throw_storage_overflow(sizes, nullptr);
  return *bytes;
}

int64_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset, size_t itemsize) {
  const int64_t span = span_elements(sizes, strides);
  const std::optional<int64_t> elements = span == 0 ? std::optional<int64_t>(0) : checked_add(span, offset);
  const std::optional<int64_t> bytes = elements ? checked_mul(*elements, static_cast<int64_t>(itemsize)) : std::nullopt;
  if (!bytes) throw_storage_overflow(sizes, &strides);
  return *bytes;
}

int64_t normalize_dim(int64_t dim, int64_t rank, std::string_view op) {
  const int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound) {
    throw_error(ErrorKind::Index, std::string(op) + ": dimension out of range (expected to be in range of [" +
                                      std::to_string(-bound) + ", " + std::to_string(bound - 1) +
                                      "], but got " + std::to_string(dim) + ")");
  }
  return dim < 0 ? dim + bound : dim;
}

DimVector normalize_dims(IntArrayRef dims, int64_t rank, std::string_view op) {
  DimVector out;
  for (int64_t d : dims) out.push_back(normalize_dim(d, rank, op));
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i) {
    if (out[i] == out[i - 1]) {
      throw_error(ErrorKind::Runtime,
                  std::string(op) + ": dim " + std::to_string(out[i]) + " appears multiple times in the list of dims");
    }
  }
  return out;
}

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, std::string_view op) {
  const size_t rank = std::max(a.size(), b.size());
  DimVector out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t sa = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t sb = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (sa != sb && sa != 1 && sb != 1) {
      throw_error(ErrorKind::Runtime, std::string(op) + ": shapes " + shape_str(a) + " and " + shape_str(b) +
                                          " cannot be broadcast together (size " + std::to_string(sa) + " vs " +
                                          std::to_string(sb) + " at dimension " + std::to_string(i) + ")");
    }
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

bool broadcasts_together(IntArrayRef a, IntArrayRef b) {
  for (size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
    const int64_t sa = a[a.size() - i];
    const int64_t sb = b[b.size() - i];
    if (sa != sb && sa != 1 && sb != 1) return false;
  }
  return true;
}

bool broadcasts_to(IntArrayRef from, IntArrayRef to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  }
  return true;
}

DimVector infer_view_shape(IntArrayRef shape, int64_t numel, std::string_view op) {
  DimVector out(shape);
  int64_t known = 1;
  std::optional<size_t> infer_at;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      if (infer_at) throw_error(ErrorKind::Runtime, std::string(op) + ": only one dimension can be inferred");
      infer_at = i;
    } else if (out[i] < 0) {
      throw_error(ErrorKind::Runtime, std::string(op) + ": invalid shape dimension " + std::to_string(out[i]));
    } else {
      const std::optional<int64_t> product = checked_mul(known, out[i]);
      if (!product) {
        throw_error(ErrorKind::Runtime, std::string(op) + ": shape '" + shape_str(shape) +
                                            "' is invalid for input of size " + std::to_string(numel) +
                                            " (its sizes multiply past 2^63 - 1)");
      }
      known = *product;
    }
  }
  if (infer_at && known != 0 && numel % known == 0) {
    out[*infer_at] = numel / known;
    return out;
  }
  if (!infer_at && known == numel) return out;
  throw_error(ErrorKind::Runtime, std::string(op) + ": shape '" + shape_str(shape) + "' is invalid for input of size " +
                                      std::to_string(numel));
}

std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes) {
  DimVector out(new_sizes.size());
  if (numel_of(sizes) == 0 || sizes.empty()) {
    return contiguous_strides(new_sizes);
  }
  // Walk the old dims from the back, merging runs that are contiguous with
  // each other ("chunks"), and hand each chunk's elements to new dims.
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(sizes.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= sizes[tensor_d];
    const bool chunk_ends = tensor_d == 0 ||
                            (sizes[tensor_d - 1] != 1 && strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
    if (chunk_ends) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        const std::optional<int64_t> stride = checked_mul(view_numel, chunk_base_stride);
        if (!stride) return std::nullopt;
        out[view_d] = *stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace ember
