// Elementwise loops over operands whose layouts cross (Note [Crossed
// layouts]), walked in tiles.
#ifndef EMBER_PLUGINS_CPU_KERNELS_CROSSED_TILES_H_
#define EMBER_PLUGINS_CPU_KERNELS_CROSSED_TILES_H_

#include <algorithm>
#include <cstdint>

#include <ember/ember_plugin.hpp>

#include "../parallel.h"
#include "row_blocks.h"
#include "transpose.h"

namespace ember::cpu {

// Note [Crossed layouts]: an elementwise op whose output is contiguous
// along one dim while an input is contiguous along another (`x.t() + y`,
// `a * b.t()`) reads that input a cache line per element when walked in
// the output's order, and each line is gone before the walk returns for its
// neighbours. The walk instead goes through tiles of kCrossedTileRun
// elements of the output's dim by kCrossedTileRows of the input's: each
// crossed input's tile is first transposed into a buffer (Note [Blocked
// transpose]), whole cache lines read once, and the tile then goes to the
// kernel's run function row by row, every row contiguous, as a plain walk
// of contiguous operands would hand it. Values are those of the plain walk.
// Threads split tiles. A crossed output is walked by tiles too, in place.
inline constexpr int64_t kCrossedTileRun = 64;
inline constexpr int64_t kCrossedTileRows = 16;

// Whether operand k of a memory-order loop is contiguous along the second
// loop dim and strided (not broadcast) along the first.
inline bool is_crossed(const sdk::StridedLoop& loop, int k) {
  const int64_t inner = loop.strides(0)[k];
  const int64_t size = loop.element_size(k);
  return inner != 0 && inner != size && inner % size == 0 && loop.strides(1)[k] == size;
}

inline bool has_crossed_operand(const sdk::StridedLoop& loop) {
  if (loop.ndim() < 2) return false;
  for (int k = 0; k < loop.num_operands(); ++k) {
    if (is_crossed(loop, k)) return true;
  }
  return false;
}

namespace detail {
// rows x n elements of `size` bytes from a crossed operand's tile at `from`
// (element stride `stride` along the run) into `to`, row-major by tile row.
inline void stage_crossed_tile(const char* from, int64_t stride, char* to, int64_t size, int64_t rows, int64_t n) {
  switch (size) {
    case 1:
      return transpose_tile(reinterpret_cast<const uint8_t*>(from), stride, reinterpret_cast<uint8_t*>(to),
                            kCrossedTileRun, rows, n);
    case 2:
      return transpose_tile(reinterpret_cast<const uint16_t*>(from), stride, reinterpret_cast<uint16_t*>(to),
                            kCrossedTileRun, rows, n);
    case 4:
      return transpose_tile(reinterpret_cast<const uint32_t*>(from), stride, reinterpret_cast<uint32_t*>(to),
                            kCrossedTileRun, rows, n);
    default:
      return transpose_tile(reinterpret_cast<const uint64_t*>(from), stride, reinterpret_cast<uint64_t*>(to),
                            kCrossedTileRun, rows, n);
  }
}
}  // namespace detail

// Runs run(ptrs, strides, n, row_strides, rows) over every element of
// `loop` in tiles of its first two dims (Note [Crossed layouts], Note [Runs
// in row blocks]); `grain` is in elements.
template <class Run>
void run_in_crossed_tiles(const sdk::StridedLoop& loop, int64_t grain, const Run& run) {
  constexpr int kMaxOperands = sdk::StridedLoop::kMaxOperands;
  constexpr int64_t kTileBytes = kCrossedTileRun * kCrossedTileRows * 8;
  const int operands = loop.num_operands();
  const int64_t run_length = loop.size(0);
  const int64_t rows = loop.size(1);
  const int64_t run_tiles = (run_length + kCrossedTileRun - 1) / kCrossedTileRun;
  const int64_t row_tiles = (rows + kCrossedTileRows - 1) / kCrossedTileRows;
  const int64_t planes = loop.numel() / (run_length * rows);
  const int64_t tiles = planes * row_tiles * run_tiles;
  const int64_t tile_grain = std::max<int64_t>(1, grain / (kCrossedTileRun * kCrossedTileRows));
  // Inputs only: an output is written where it lies.
  bool staged[kMaxOperands] = {};
  int64_t run_strides[kMaxOperands];
  for (int k = 0; k < operands; ++k) {
    staged[k] = k > 0 && is_crossed(loop, k);
    run_strides[k] = staged[k] ? loop.element_size(k) : loop.strides(0)[k];
  }
  parallel_for(0, tiles, tile_grain, [&](int64_t begin, int64_t end) {
    alignas(64) char staging[kMaxOperands][kTileBytes];
    char* ptrs[kMaxOperands];
    for (int64_t tile = begin; tile < end; ++tile) {
      int64_t plane = tile / (row_tiles * run_tiles);
      const int64_t row0 = tile / run_tiles % row_tiles * kCrossedTileRows;
      const int64_t tile_rows = std::min(kCrossedTileRows, rows - row0);
      const int64_t start = tile % run_tiles * kCrossedTileRun;
      const int64_t n = std::min(kCrossedTileRun, run_length - start);
      for (int k = 0; k < operands; ++k) {
        ptrs[k] = loop.base(k) + start * loop.strides(0)[k] + row0 * loop.strides(1)[k];
      }
      for (int d = 2; d < loop.ndim(); ++d) {
        const int64_t index = plane % loop.size(d);
        plane /= loop.size(d);
        for (int k = 0; k < operands; ++k) ptrs[k] += index * loop.strides(d)[k];
      }
      for (int k = 1; k < operands; ++k) {
        if (!staged[k]) continue;
        const int64_t size = loop.element_size(k);
        detail::stage_crossed_tile(ptrs[k], loop.strides(0)[k] / size, staging[k], size, tile_rows, n);
      }
      int64_t row_strides[kMaxOperands];
      for (int k = 0; k < operands; ++k) {
        if (staged[k]) ptrs[k] = staging[k];
        row_strides[k] = staged[k] ? kCrossedTileRun * loop.element_size(k) : loop.strides(1)[k];
      }
      run(static_cast<char* const*>(ptrs), static_cast<const int64_t*>(run_strides), n,
          static_cast<const int64_t*>(row_strides), tile_rows);
    }
  });
}

// Runs run(ptrs, strides, n, row_strides, rows) over every element of a
// memory-order loop on the pool: in tiles where operands' layouts cross,
// else in chunks of at least `grain` elements, in blocks of rows (Note [Runs
// in row blocks]).
template <class Run>
void run_elementwise(const sdk::StridedLoop& loop, int64_t grain, const Run& run) {
  if (has_crossed_operand(loop)) return run_in_crossed_tiles(loop, grain, run);
  parallel_for(0, loop.numel(), grain, [&](int64_t begin, int64_t end) { run_row_blocks(loop, begin, end, run); });
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_CROSSED_TILES_H_
