// Transposing tiles of a strided array through cache-sized blocks, shared
// by the copy kernel (t().contiguous(), permutes) and the reductions of
// short rows (Note [Blocked transpose]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_TRANSPOSE_H_
#define EMBER_PLUGINS_CPU_KERNELS_TRANSPOSE_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "isa_clones.h"

namespace ember::cpu {

// Note [Blocked transpose]: a copy where the source runs contiguously along
// one dimension and the destination along another (t().contiguous(), a
// permute) touches a new cache line per element on one side when done in
// either side's order, and with power-of-two strides those lines fall into
// the same few L1 sets. It goes through square tiles of kTransposeTile
// elements a side, each copied in square blocks a cache line wide (16
// float32 or bfloat16, 8 float64) held in vector registers: a block is read
// along the source's contiguous dimension and written along the
// destination's, so both sides move whole cache lines, with the shuffles of
// each ISA clone in between (Note [ISA clones]), and the lines and pages a
// tile touches stay in L1 and the TLB. Threads split tiles, never a tile.
inline constexpr int64_t kTransposeTile = 128;

// The side of a block of U: one cache line of it, at most 16 elements.
template <class U>
inline constexpr int64_t kTransposeBlock = std::min<int64_t>(16, 64 / sizeof(U));

namespace detail {

// The shuffle that exchanges bit `kDistance` of the row index with the same
// bit of the column index between rows a (bit clear) and a + kDistance: row
// a keeps its elements whose column has the bit clear and takes row a +
// kDistance's there (`low`); row a + kDistance the rest (`high`).
template <class U, int kSide, int kDistance>
struct ExchangeMasks {
  static constexpr std::array<U, kSide> make(bool high) {
    std::array<U, kSide> mask{};
    for (int j = 0; j < kSide; ++j) {
      const bool clear = (j & kDistance) == 0;
      mask[j] = static_cast<U>(high ? (clear ? j + kDistance : kSide + j) : (clear ? j : kSide + j - kDistance));
    }
    return mask;
  }
  static constexpr std::array<U, kSide> low = make(false);
  static constexpr std::array<U, kSide> high = make(true);
};

template <class U, int kSide, int kDistance, class Row>
inline __attribute__((always_inline)) void exchange_rows(Row* rows) {
  Row low;
  Row high;
  std::memcpy(&low, ExchangeMasks<U, kSide, kDistance>::low.data(), sizeof(Row));
  std::memcpy(&high, ExchangeMasks<U, kSide, kDistance>::high.data(), sizeof(Row));
  for (int pair = 0; pair < kSide; pair += 2 * kDistance) {
    for (int a = pair; a < pair + kDistance; ++a) {
      const Row first = rows[a];
      const Row second = rows[a + kDistance];
      rows[a] = __builtin_shuffle(first, second, low);
      rows[a + kDistance] = __builtin_shuffle(first, second, high);
    }
  }
}

template <class U, int kSide, class Row, int... kBits>
inline __attribute__((always_inline)) void exchange_all(Row* rows, std::integer_sequence<int, kBits...>) {
  (exchange_rows<U, kSide, (1 << kBits)>(rows), ...);
}

}  // namespace detail

// One full block of side B: to[r * dst_stride + c] = from[c * src_stride + r]
// for r, c < B, as B vector loads, log2(B) rounds of shuffles (each
// exchanging one bit of the row index with the same bit of the column
// index, detail::ExchangeMasks) and B vector stores. U is an unsigned
// integer type: the copy moves bits. Always inlined, so that it runs on the
// ISA of the clone that calls it (Note [ISA clones]).
template <class U, int kSide>
inline __attribute__((always_inline)) void transpose_block(const U* from, int64_t src_stride, U* to,
                                                           int64_t dst_stride) {
  static_assert(std::is_unsigned_v<U>);
  constexpr int kBits = kSide == 16 ? 4 : kSide == 8 ? 3 : kSide == 4 ? 2 : 1;
  static_assert((1 << kBits) == kSide);
  typedef U Row __attribute__((vector_size(kSide * sizeof(U))));
  Row rows[kSide];
  for (int c = 0; c < kSide; ++c) std::memcpy(&rows[c], from + c * src_stride, sizeof(Row));
  detail::exchange_all<U, kSide>(rows, std::make_integer_sequence<int, kBits>{});
  for (int r = 0; r < kSide; ++r) std::memcpy(to + r * dst_stride, &rows[r], sizeof(Row));
}

// dst[r * dst_stride + c] = src[c * src_stride + r] for r < rows, c < cols
// (strides in elements), in blocks of side kSide.
template <class U, int kSide = kTransposeBlock<U>>
EMBER_CPU_ISA_CLONES void transpose_tile(const U* src, int64_t src_stride, U* dst, int64_t dst_stride, int64_t rows,
                                         int64_t cols) {
  for (int64_t c0 = 0; c0 < cols; c0 += kSide) {
    for (int64_t r0 = 0; r0 < rows; r0 += kSide) {
      const U* from = src + c0 * src_stride + r0;
      U* to = dst + r0 * dst_stride + c0;
      if (r0 + kSide <= rows && c0 + kSide <= cols) {
        transpose_block<U, kSide>(from, src_stride, to, dst_stride);
      } else {
        for (int64_t r = 0; r < std::min<int64_t>(kSide, rows - r0); ++r) {
          for (int64_t c = 0; c < std::min<int64_t>(kSide, cols - c0); ++c) to[r * dst_stride + c] = from[c * src_stride + r];
        }
      }
    }
  }
}

// transpose_tile for elements of any type, moved as bits, in blocks of at
// most kSide a side.
template <int kSide, class T>
void transpose_elements(const T* src, int64_t src_stride, T* dst, int64_t dst_stride, int64_t rows, int64_t cols) {
  using Bits = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(Bits) == sizeof(T));
  transpose_tile<Bits, std::min<int>(kSide, kTransposeBlock<Bits>)>(
      reinterpret_cast<const Bits*>(src), src_stride, reinterpret_cast<Bits*>(dst), dst_stride, rows, cols);
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_TRANSPOSE_H_
