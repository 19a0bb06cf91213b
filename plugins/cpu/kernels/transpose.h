// Transposing tiles of a strided array through cache-sized blocks, shared
// by the copy kernel (t().contiguous(), permutes) and the reductions of
// short rows (Note [Blocked transpose]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_TRANSPOSE_H_
#define EMBER_PLUGINS_CPU_KERNELS_TRANSPOSE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "elementwise.h"

namespace ember::cpu {

// Note [Blocked transpose]: a copy where the source runs contiguously along
// one dimension and the destination along another (t().contiguous(), a
// permute) touches a new cache line per element on one side when done in
// either side's order, and with power-of-two strides those lines fall into
// the same few L1 sets. It goes through square tiles of kTransposeTile
// elements a side, each copied in blocks of kTransposeBlock a side held in
// vector registers: a block is read along the source's contiguous dimension
// and written along the destination's, so both sides move whole runs, with
// the shuffles of each ISA clone in between (Note [ISA clones]), and the
// lines and pages a tile touches stay in L1 and the TLB. Threads split
// tiles, never a tile.
inline constexpr int64_t kTransposeBlock = 8;
inline constexpr int64_t kTransposeTile = 128;

// One full block: to[r * dst_stride + c] = from[c * src_stride + r] for r,
// c < 8, as eight vector loads, three rounds of shuffles (each exchanging one
// bit of the row index with the same bit of the column index) and eight
// vector stores. U is an unsigned integer type: the copy moves bits.
template <class U>
inline __attribute__((always_inline)) void transpose_block(const U* from, int64_t src_stride, U* to,
                                                           int64_t dst_stride) {
  static_assert(kTransposeBlock == 8 && std::is_unsigned_v<U>);
  typedef U Row __attribute__((vector_size(8 * sizeof(U))));
  Row rows[8];
  for (int c = 0; c < 8; ++c) std::memcpy(&rows[c], from + c * src_stride, sizeof(Row));
  const auto exchange = [&rows](int distance, Row low, Row high) {
    for (int a = 0; a < 8; ++a) {
      if (a & distance) continue;
      const Row first = rows[a];
      const Row second = rows[a + distance];
      rows[a] = __builtin_shuffle(first, second, low);
      rows[a + distance] = __builtin_shuffle(first, second, high);
    }
  };
  exchange(1, Row{0, 8, 2, 10, 4, 12, 6, 14}, Row{1, 9, 3, 11, 5, 13, 7, 15});
  exchange(2, Row{0, 1, 8, 9, 4, 5, 12, 13}, Row{2, 3, 10, 11, 6, 7, 14, 15});
  exchange(4, Row{0, 1, 2, 3, 8, 9, 10, 11}, Row{4, 5, 6, 7, 12, 13, 14, 15});
  for (int r = 0; r < 8; ++r) std::memcpy(to + r * dst_stride, &rows[r], sizeof(Row));
}

// dst[r * dst_stride + c] = src[c * src_stride + r] for r < rows, c < cols
// (strides in elements).
template <class U>
EMBER_CPU_ISA_CLONES void transpose_tile(const U* src, int64_t src_stride, U* dst, int64_t dst_stride, int64_t rows,
                                         int64_t cols) {
  for (int64_t c0 = 0; c0 < cols; c0 += kTransposeBlock) {
    for (int64_t r0 = 0; r0 < rows; r0 += kTransposeBlock) {
      const U* from = src + c0 * src_stride + r0;
      U* to = dst + r0 * dst_stride + c0;
      if (r0 + kTransposeBlock <= rows && c0 + kTransposeBlock <= cols) {
        transpose_block(from, src_stride, to, dst_stride);
      } else {
        for (int64_t r = 0; r < std::min(kTransposeBlock, rows - r0); ++r) {
          for (int64_t c = 0; c < std::min(kTransposeBlock, cols - c0); ++c)
            to[r * dst_stride + c] = from[c * src_stride + r];
        }
      }
    }
  }
}

// transpose_tile for elements of any type, moved as bits.
template <class T>
void transpose_elements(const T* src, int64_t src_stride, T* dst, int64_t dst_stride, int64_t rows, int64_t cols) {
  using Bits = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(Bits) == sizeof(T));
  transpose_tile(reinterpret_cast<const Bits*>(src), src_stride, reinterpret_cast<Bits*>(dst), dst_stride, rows, cols);
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_TRANSPOSE_H_
