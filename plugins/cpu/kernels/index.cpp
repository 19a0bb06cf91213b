// Indexing: index_select, gather, scatter_add and cat (ops.md "Indexing").
// Index values are data, so they are validated here, before any output is
// written: a bad one is EMBER_STATUS_OUT_OF_RANGE.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

constexpr int kMaxDims = sdk::StridedLoop::kMaxDims;

// Calls fn(TypeTag<I>) for an int64 or int32 index tensor.
template <class Fn>
void visit_index_dtype(const ember_kernel_call& call, const DLTensor& index, Fn&& fn) {
  switch (sdk::dtype_of(index)) {
    case EMBER_DTYPE_INT64: return fn(sdk::TypeTag<int64_t>{});
    case EMBER_DTYPE_INT32: return fn(sdk::TypeTag<int32_t>{});
    default:
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
                std::string(call.op_name) + ": index must be int64 or int32");
  }
}

// Fails on the first index outside [0, size): negative indices are the
// caller's to wrap (ops.md "Indexing"). The threads test every index; only
// when one fails does a serial walk find the first, for the message.
template <class I>
void check_indices(const ember_kernel_call& call, const DLTensor& index, int64_t dim,
                   int64_t size) {
  if (!any_element<I>(index, [size](int64_t value) { return value < 0 || value >= size; })) return;
  const sdk::StridedLoop loop{&index};
  loop.run([&](char* const* ptrs, const int64_t* strides, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t value = *reinterpret_cast<const I*>(ptrs[0] + i * strides[0]);
      if (value < 0 || value >= size) {
        sdk::fail(EMBER_STATUS_OUT_OF_RANGE,
                  std::string(call.op_name) + ": index " + std::to_string(value) +
                      " is out of range for dimension " + std::to_string(dim) + " with size " +
                      std::to_string(size));
      }
    }
  });
}

int64_t checked_dim(const ember_kernel_call& call, const DLTensor& x) {
  const int64_t dim = sdk::attr_int(call, "dim");
  if (dim < 0 || dim >= x.ndim || x.ndim > kMaxDims) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              std::string(call.op_name) + ": dim " + std::to_string(dim) + " out of range");
  }
  return dim;
}

// A view of `t` with another shape (borrowed) and the same strides, starting
// `offset` elements along `dim` further in.
DLTensor shifted_view(const DLTensor& t, const int64_t* shape, int64_t dim, int64_t offset) {
  DLTensor view = t;
  view.shape = const_cast<int64_t*>(shape);
  view.byte_offset += static_cast<uint64_t>(offset * t.strides[dim]) * (t.dtype.bits / 8);
  return view;
}

// The `dim` view of x over index's shape: the stride along dim is zeroed
// because the index supplies that coordinate.
DLTensor along_index(const DLTensor& x, const DLTensor& index, int64_t dim, int64_t* strides) {
  DLTensor view = x;
  view.ndim = index.ndim;
  view.shape = index.shape;
  std::copy(x.strides, x.strides + x.ndim, strides);
  strides[dim] = 0;
  view.strides = strides;
  return view;
}

template <class T, class I>
void gather(const DLTensor& x, const DLTensor& index, const DLTensor& out, int64_t dim) {
  int64_t strides[kMaxDims];
  const DLTensor source = along_index(x, index, dim, strides);
  const sdk::StridedLoop loop{&out, &index, &source};
  const int64_t dim_stride = x.strides[dim] * static_cast<int64_t>(sizeof(T));
  // A gathered element costs about 0.8 ns (Note [Grain sizes]).
  parallel_for(0, loop.numel(), grain_for(0.8), [&](int64_t begin, int64_t end) {
    loop.run(begin, end, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t e = 0; e < n; ++e) {
        const int64_t i = *reinterpret_cast<const I*>(p[1] + e * s[1]);
        *reinterpret_cast<T*>(p[0] + e * s[0]) =
            *reinterpret_cast<const T*>(p[2] + e * s[2] + i * dim_stride);
      }
    });
  });
}

// Gathering moves bits: only the element size matters.
template <class I>
void gather_bits(const DLTensor& x, const DLTensor& index, const DLTensor& out, int64_t dim) {
  switch (x.dtype.bits) {
    case 8: return gather<uint8_t, I>(x, index, out, dim);
    case 16: return gather<uint16_t, I>(x, index, out, dim);
    case 32: return gather<uint32_t, I>(x, index, out, dim);
    case 64: return gather<uint64_t, I>(x, index, out, dim);
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "gather: unexpected element size");
}

// Slices of fewer elements than this, or slices across the last dim (whose
// elements lie a row apart), are gathered element by element over the
// output: copied one slice at a time they cost a strided copy each
// (flip of a long vector, a column permutation).
constexpr int64_t kSliceCopyMost = 64;

void index_select_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& index = call.inputs[1];
  const DLTensor& out = call.outputs[0];
  const int64_t dim = checked_dim(call, x);
  const int64_t size = x.shape[dim];
  visit_index_dtype(call, index, [&](auto tag) {
    using I = typename decltype(tag)::type;
    check_indices<I>(call, index, dim, size);
    int64_t slice_shape[kMaxDims];
    std::copy(x.shape, x.shape + x.ndim, slice_shape);
    slice_shape[dim] = 1;
    const int64_t slice_numel = sdk::numel(out) / std::max<int64_t>(out.shape[dim], 1);
    const auto* indices = reinterpret_cast<const I*>(sdk::data_ptr(index));
    const int64_t index_stride = index.ndim == 0 ? 0 : index.strides[0];
    const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(slice_numel, 1));
    if (slice_numel < kSliceCopyMost || dim == x.ndim - 1) {
      // index_select is a gather whose index is broadcast along the other dims.
      int64_t broadcast_strides[kMaxDims] = {};
      broadcast_strides[dim] = index_stride;
      DLTensor broadcast_index = index;
      broadcast_index.ndim = out.ndim;
      broadcast_index.shape = out.shape;
      broadcast_index.strides = broadcast_strides;
      return gather_bits<I>(x, broadcast_index, out, dim);
    }
    // Rows of row-major tensors (embedding's lookups) are blocks of bytes.
    const bool whole_rows = dim == 0 && sdk::is_contiguous(x) && sdk::is_contiguous(out);
    const size_t row_bytes = static_cast<size_t>(slice_numel) * (x.dtype.bits / 8);
    const char* x_data = static_cast<const char*>(sdk::data_ptr(x));
    char* out_data = static_cast<char*>(sdk::data_ptr(out));
    parallel_for(0, out.shape[dim], grain, [&](int64_t begin, int64_t end) {
      for (int64_t j = begin; j < end; ++j) {
        const int64_t i = indices[j * index_stride];
        if (whole_rows) {
          std::memcpy(out_data + static_cast<size_t>(j) * row_bytes, x_data + static_cast<size_t>(i) * row_bytes,
                      row_bytes);
        } else {
          copy_tensor(shifted_view(x, slice_shape, dim, i), shifted_view(out, slice_shape, dim, j));
        }
      }
    });
  });
}

void gather_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& index = call.inputs[1];
  const int64_t dim = checked_dim(call, x);
  visit_index_dtype(call, index, [&](auto index_tag) {
    using I = typename decltype(index_tag)::type;
    check_indices<I>(call, index, dim, x.shape[dim]);
    gather_bits<I>(x, index, call.outputs[0], dim);
  });
}

// Whether `index` holds one entry per position along `dim`, broadcast (stride
// 0) over its other dims: a row index, as embedding's backward makes it.
bool is_row_index(const DLTensor& index, int64_t dim) {
  for (int d = 0; d < index.ndim; ++d) {
    if (d != dim && index.shape[d] > 1 && index.strides[d] != 0) return false;
  }
  return true;
}

// Note [Scatter of broadcast rows]: with a row index (is_row_index), row j
// of src goes whole into row index[j] of out. Threads take disjoint ranges
// of the elements of a row (the other dims' positions) and add every row j
// into theirs in increasing j, so no element is written by two threads and
// each element gets its additions in the order the serial walk gives them:
// the same bits. Only the rows' index values are checked, where the serial
// walk reads one per element of the broadcast index.
template <class T, class I>
void scatter_add_rows(const ember_kernel_call& call, const DLTensor& x, const DLTensor& index, const DLTensor& src,
                      const DLTensor& out, int64_t dim) {
  const int64_t rows = index.shape[dim];
  DLTensor row_index = index;
  int64_t row_shape[1] = {rows};
  int64_t row_stride[1] = {index.strides[dim]};
  row_index.ndim = 1;
  row_index.shape = row_shape;
  row_index.strides = row_stride;
  check_indices<I>(call, row_index, dim, out.shape[dim]);
  copy_tensor(x, out);
  int64_t first_row_shape[kMaxDims];
  std::copy(index.shape, index.shape + index.ndim, first_row_shape);
  first_row_shape[dim] = 1;
  DLTensor src_row = src;
  DLTensor out_row = out;
  src_row.shape = first_row_shape;
  out_row.shape = first_row_shape;
  const sdk::StridedLoop loop{&out_row, &src_row};
  const char* index_data = static_cast<const char*>(sdk::data_ptr(index));
  const int64_t index_step = index.strides[dim] * static_cast<int64_t>(sizeof(I));
  const int64_t out_step = out.strides[dim] * static_cast<int64_t>(sizeof(T));
  const int64_t src_step = src.strides[dim] * static_cast<int64_t>(sizeof(T));
  // Each chunk walks every row, so a chunk per thread: more chunks would
  // repeat the walk over the rows for fewer elements each.
  const int64_t elements = loop.numel();
  const int64_t grain =
      std::max(kElementwiseGrain / std::max<int64_t>(rows, 1), (elements + num_threads() - 1) / num_threads());
  struct Run {
    char* out;
    const char* src;
    int64_t out_stride, src_stride, length;
  };
  parallel_for(0, elements, grain, [&](int64_t begin, int64_t end) {
    // The chunk's runs are the same in every row: found once, walked per row.
    std::vector<Run> runs;
    loop.run(begin, end,
             [&](char* const* p, const int64_t* s, int64_t n) { runs.push_back({p[0], p[1], s[0], s[1], n}); });
    for (int64_t j = 0; j < rows; ++j) {
      const int64_t target = *reinterpret_cast<const I*>(index_data + j * index_step);
      for (const Run& run : runs) {
        char* dst = run.out + target * out_step;
        const char* value = run.src + j * src_step;
        if (run.out_stride == sizeof(T) && run.src_stride == sizeof(T)) {
          T* typed_dst = reinterpret_cast<T*>(dst);
          const T* typed_value = reinterpret_cast<const T*>(value);
          for (int64_t e = 0; e < run.length; ++e) add_into(typed_dst[e], typed_value[e]);
        } else {
          for (int64_t e = 0; e < run.length; ++e) {
            add_into(*reinterpret_cast<T*>(dst + e * run.out_stride),
                     *reinterpret_cast<const T*>(value + e * run.src_stride));
          }
        }
      }
    }
  });
}

// Serial on purpose: two index entries may name the same output element
// (a row index is the exception, Note [Scatter of broadcast rows]).
template <class T>
void scatter_add_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& index = call.inputs[1];
  const DLTensor& src = call.inputs[2];
  const DLTensor& out = call.outputs[0];
  const int64_t dim = checked_dim(call, x);
  const int64_t size = x.shape[dim];
  visit_index_dtype(call, index, [&](auto index_tag) {
    using I = typename decltype(index_tag)::type;
    if (is_row_index(index, dim) && sdk::numel(index) > 0) return scatter_add_rows<T, I>(call, x, index, src, out, dim);
    check_indices<I>(call, index, dim, size);
    copy_tensor(x, out);
    DLTensor src_view = src;
    src_view.shape = index.shape;
    int64_t strides[kMaxDims];
    const DLTensor target = along_index(out, index, dim, strides);
    const sdk::StridedLoop loop{&index, &src_view, &target};
    const int64_t dim_stride = out.strides[dim] * static_cast<int64_t>(sizeof(T));
    loop.run([&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t e = 0; e < n; ++e) {
        const int64_t i = *reinterpret_cast<const I*>(p[0] + e * s[0]);
        add_into(*reinterpret_cast<T*>(p[2] + e * s[2] + i * dim_stride), *reinterpret_cast<const T*>(p[1] + e * s[1]));
      }
    });
  });
}

void cat_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  const int64_t dim = checked_dim(call, out);
  int64_t offset = 0;
  for (int64_t k = 0; k < call.num_inputs; ++k) {
    const DLTensor& x = call.inputs[k];
    if (sdk::numel(x) == 0) continue;
    copy_tensor(x, shifted_view(out, x.shape, dim, offset));
    offset += x.shape[dim];
  }
}

}  // namespace

void register_index_kernels(const sdk::Registrar& r) {
  r.add_each("index_select", sdk::AllTypes{},
             [](auto) { return &sdk::kernel_entry<&index_select_kernel>; });
  r.add_each("gather", sdk::AllTypes{}, [](auto) { return &sdk::kernel_entry<&gather_kernel>; });
  r.add_each("cat", sdk::AllTypes{}, [](auto) { return &sdk::kernel_entry<&cat_kernel>; });
  r.add_each("scatter_add", sdk::AllTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&scatter_add_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
