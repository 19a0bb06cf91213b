// copy: strided copies and casts between all pairs of dtypes (ops.md
// "Conversion and copy").
#include <algorithm>
#include <cstring>

#include "elementwise.h"
#include "half_convert.h"
#include "kernels.h"
#include "transpose.h"

namespace ember::cpu {
namespace {

// A plain memcpy costs about 0.015 ns a byte, a conversion about 0.3 ns an
// element, a transposing copy about 0.13 ns (Note [Grain sizes]).
constexpr int64_t kMemcpyGrain = grain_for(0.015);
constexpr int64_t kConvertGrain = grain_for(0.3);
constexpr int64_t kTransposeGrain = grain_for(0.13);

template <class Src, class Dst>
constexpr bool kConvertsReducedFloat = (std::is_same_v<Src, float> && sdk::is_reduced_float_v<Dst>) ||
                                       (sdk::is_reduced_float_v<Src> && std::is_same_v<Dst, float>);

// A contiguous run between float32 and float16 or bfloat16 on the machine's
// ISA (Note [ISA clones]): the baseline build converts bfloat16 one element
// at a time, the clones a vector at a time; float16 takes the CPU's
// conversion instructions (Note [Hardware float16]).
template <class Src, class Dst>
EMBER_CPU_ISA_CLONES void convert_contiguous(const Src* from, Dst* to, int64_t n) {
  if constexpr (std::is_same_v<Src, sdk::float16>) {
    widen_float16(from, to, n);
  } else if constexpr (std::is_same_v<Dst, sdk::float16>) {
    narrow_float16(from, to, n);
  } else {
    for (int64_t i = 0; i < n; ++i) to[i] = sdk::convert<Dst>(sdk::to_compute(from[i]));
  }
}

template <class Src, class Dst>
void convert(const DLTensor& src, const DLTensor& dst) {
  const sdk::StridedLoop loop({&dst, &src}, sdk::LoopOrder::Memory);
  const auto convert_one = [](Src x) { return sdk::convert<Dst>(sdk::to_compute(x)); };
  parallel_for(0, loop.numel(), kConvertGrain, [&](int64_t begin, int64_t end) {
    if constexpr (kConvertsReducedFloat<Src, Dst>) {
      loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
        if (strides[1] == static_cast<int64_t>(sizeof(Src)) && strides[0] == static_cast<int64_t>(sizeof(Dst))) {
          convert_contiguous(reinterpret_cast<const Src*>(ptrs[1]), reinterpret_cast<Dst*>(ptrs[0]), n);
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          *reinterpret_cast<Dst*>(ptrs[0] + i * strides[0]) =
              convert_one(*reinterpret_cast<const Src*>(ptrs[1] + i * strides[1]));
        }
      });
    } else {
      sdk::transform<Dst, Src>(loop, begin, end, convert_one);
    }
  });
}

// A same-dtype copy whose source is contiguous along one loop dimension and
// whose destination is contiguous along another (Note [Blocked transpose]):
// every plane of those two dimensions is transposed by tiles. False, having
// copied nothing, for any other layout.
template <class U>
bool copy_transposed(const DLTensor& src, const DLTensor& dst) {
  const sdk::StridedLoop loop{&dst, &src};
  constexpr int64_t kSize = static_cast<int64_t>(sizeof(U));
  int r_dim = -1;  // where the source is contiguous
  int c_dim = -1;  // where the destination is contiguous
  for (int d = 0; d < loop.ndim(); ++d) {
    if (r_dim < 0 && loop.strides(d)[1] == kSize) r_dim = d;
    if (c_dim < 0 && loop.strides(d)[0] == kSize) c_dim = d;
  }
  if (r_dim < 0 || c_dim < 0 || r_dim == c_dim) return false;
  const int64_t rows = loop.size(r_dim);
  const int64_t cols = loop.size(c_dim);
  const int64_t row_tiles = (rows + kTransposeTile - 1) / kTransposeTile;
  const int64_t col_tiles = (cols + kTransposeTile - 1) / kTransposeTile;
  const int64_t planes = loop.numel() / (rows * cols);
  const int64_t src_stride = loop.strides(c_dim)[1] / kSize;
  const int64_t dst_stride = loop.strides(r_dim)[0] / kSize;
  const auto plane_offsets = [&](int64_t plane, int op) {
    int64_t offset = 0;
    for (int d = 0; d < loop.ndim(); ++d) {
      if (d == r_dim || d == c_dim) continue;
      offset += plane % loop.size(d) * loop.strides(d)[op];
      plane /= loop.size(d);
    }
    return offset;
  };
  const int64_t tiles = planes * col_tiles * row_tiles;
  parallel_for(0, tiles, std::max<int64_t>(1, kTransposeGrain / (kTransposeTile * kTransposeTile)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t tile = begin; tile < end; ++tile) {
                   const int64_t plane = tile / (col_tiles * row_tiles);
                   const int64_t c0 = tile / row_tiles % col_tiles * kTransposeTile;
                   const int64_t r0 = tile % row_tiles * kTransposeTile;
                   const U* from =
                       reinterpret_cast<const U*>(loop.base(1) + plane_offsets(plane, 1)) + c0 * src_stride + r0;
                   U* to = reinterpret_cast<U*>(loop.base(0) + plane_offsets(plane, 0)) + r0 * dst_stride + c0;
                   transpose_tile(from, src_stride, to, dst_stride, std::min(kTransposeTile, rows - r0),
                                  std::min(kTransposeTile, cols - c0));
                 }
               });
  return true;
}

template <class U>
void copy_bits_as(const DLTensor& src, const DLTensor& dst) {
  if (!copy_transposed<U>(src, dst)) convert<U, U>(src, dst);
}

// Same-dtype strided copy moves bits, so it only depends on element size.
void copy_bits(const DLTensor& src, const DLTensor& dst, size_t element_size) {
  switch (element_size) {
    case 1:
      return copy_bits_as<uint8_t>(src, dst);
    case 2:
      return copy_bits_as<uint16_t>(src, dst);
    case 4:
      return copy_bits_as<uint32_t>(src, dst);
    case 8:
      return copy_bits_as<uint64_t>(src, dst);
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
      parallel_for(0, sdk::numel(src) * static_cast<int64_t>(size), kMemcpyGrain, [&](int64_t begin, int64_t end) {
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
