// copy: strided copies and casts between all pairs of dtypes (ops.md
// "Conversion and copy").
#include <algorithm>
#include <cstring>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

// Bytes per thread for a plain memcpy; below this one thread saturates.
constexpr int64_t kMemcpyGrain = int64_t{1} << 20;

template <class Src, class Dst>
void convert(const DLTensor& src, const DLTensor& dst) {
  const sdk::StridedLoop loop{&dst, &src};
  parallel_for(0, loop.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    sdk::transform<Dst, Src>(loop, begin, end,
                             [](Src x) { return sdk::convert<Dst>(sdk::to_compute(x)); });
  });
}

// A 2-d copy where one side walks its inner dimension with a large stride
// (a transpose): copying square tiles keeps both sides within a few cache
// lines and pages, instead of one miss per element.
template <class U>
bool copy_tiled(const DLTensor& src, const DLTensor& dst) {
  const sdk::StridedLoop loop{&dst, &src};
  if (loop.ndim() != 2) return false;
  const int64_t* inner = loop.strides(0);
  const int64_t* outer = loop.strides(1);
  const auto transposed = [&](int op) {
    return inner[op] != static_cast<int64_t>(sizeof(U)) && outer[op] == static_cast<int64_t>(sizeof(U));
  };
  if (!transposed(0) && !transposed(1)) return false;
  constexpr int64_t kTile = 32;
  const int64_t rows = loop.size(1);
  const int64_t cols = loop.size(0);
  char* const to = loop.base(0);
  const char* const from = loop.base(1);
  const int64_t row_tiles = (rows + kTile - 1) / kTile;
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / (kTile * std::max<int64_t>(cols, 1)));
  parallel_for(0, row_tiles, grain, [&](int64_t begin, int64_t end) {
    for (int64_t tile = begin; tile < end; ++tile) {
      const int64_t r_end = std::min(rows, (tile + 1) * kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t c_end = std::min(cols, c0 + kTile);
        for (int64_t r = tile * kTile; r < r_end; ++r) {
          for (int64_t c = c0; c < c_end; ++c) {
            *reinterpret_cast<U*>(to + r * outer[0] + c * inner[0]) =
                *reinterpret_cast<const U*>(from + r * outer[1] + c * inner[1]);
          }
        }
      }
    }
  });
  return true;
}

template <class U>
void copy_bits_as(const DLTensor& src, const DLTensor& dst) {
  if (!copy_tiled<U>(src, dst)) convert<U, U>(src, dst);
}

// Same-dtype strided copy moves bits, so it only depends on element size.
void copy_bits(const DLTensor& src, const DLTensor& dst, size_t element_size) {
  switch (element_size) {
    case 1: return copy_bits_as<uint8_t>(src, dst);
    case 2: return copy_bits_as<uint16_t>(src, dst);
    case 4: return copy_bits_as<uint32_t>(src, dst);
    case 8: return copy_bits_as<uint64_t>(src, dst);
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "copy: unexpected element size");
}

void copy_kernel(const ember_kernel_call& call) { copy_tensor(call.inputs[0], call.outputs[0]); }

}  // namespace

void copy_tensor(const DLTensor& src, const DLTensor& dst) {
  const ember_dtype src_dtype = sdk::dtype_of(src);
  const ember_dtype dst_dtype = sdk::dtype_of(dst);
  if (src_dtype == dst_dtype) {
    const char* from = sdk::data_ptr(src);
    char* to = sdk::data_ptr(dst);
    if (from == to && std::equal(src.strides, src.strides + src.ndim, dst.strides)) return;
    if (sdk::is_contiguous(src) && sdk::is_contiguous(dst)) {
      const size_t size = sdk::element_size(src_dtype);
      parallel_for(0, sdk::numel(src) * static_cast<int64_t>(size), kMemcpyGrain,
                   [&](int64_t begin, int64_t end) {
                     std::memcpy(to + begin, from + begin, static_cast<size_t>(end - begin));
                   });
      return;
    }
    return copy_bits(src, dst, sdk::element_size(src_dtype));
  }
  sdk::visit_dtype(src_dtype, [&](auto src_tag) {
    sdk::visit_dtype(dst_dtype, [&](auto dst_tag) {
      convert<typename decltype(src_tag)::type, typename decltype(dst_tag)::type>(src, dst);
    });
  });
}

void register_copy_kernels(const sdk::Registrar& r) {
  // One kernel for every source dtype: it dispatches on both dtypes itself.
  r.add_each("copy", sdk::AllTypes{}, [](auto) { return &sdk::kernel_entry<&copy_kernel>; });
}

}  // namespace ember::cpu
