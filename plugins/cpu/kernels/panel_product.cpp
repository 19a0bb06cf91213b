#include "panel_product.h"

#include <algorithm>
#include <cstring>

#include "elementwise.h"
#include "transpose.h"

namespace ember::cpu {
namespace {

template <int kFloats>
struct VectorOf {
  typedef float type __attribute__((vector_size(kFloats * sizeof(float))));
};

// One vector at a time: a copy of several at once goes through the stack.
// (An out-parameter: a vector returned by value changes the ABI between
// ISAs, which GCC warns about even where the call is inlined.)
template <class Vector>
inline __attribute__((always_inline)) void load(Vector& to, const float* from) {
  std::memcpy(&to, from, sizeof(Vector));
}

// Rows [0, kRows) of c by the columns of kPanels adjacent panels of b,
// along `depth` rows of the panels; the sums live in registers throughout.
template <int kFloats, int kRows, int kPanels>
inline __attribute__((always_inline)) void tile(int64_t depth, StridedMatrix a, Panels b, float* c,
                                                int64_t c_row_stride, bool accumulate) {
  using Vector = typename VectorOf<kFloats>::type;
  constexpr int kPanelVectors = kPanelWidth / kFloats;
  constexpr int kVectors = kPanels * kPanelVectors;
  // The loops over rows and vectors must unroll for the sums to stay in
  // registers; left to its own heuristics GCC kept AVX2's 3 x 4 sums and
  // panel row on the stack, and attention ran four times slower than on
  // oneDNN's AVX2 sgemm.
  Vector sums[kRows][kVectors];
#pragma GCC unroll 32
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 32
    for (int v = 0; v < kVectors; ++v) {
      if (accumulate) {
        load(sums[i][v], c + i * c_row_stride + v * kFloats);
      } else {
        sums[i][v] = Vector{};
      }
    }
  }
  for (int64_t p = 0; p < depth; ++p) {
    Vector row[kVectors];
#pragma GCC unroll 32
    for (int v = 0; v < kVectors; ++v) {
      load(row[v], b.data + v / kPanelVectors * b.panel_stride + p * b.row_stride + v % kPanelVectors * kFloats);
    }
#pragma GCC unroll 32
    for (int i = 0; i < kRows; ++i) {
      const float x = a.data[i * a.row_stride + p * a.column_stride];
#pragma GCC unroll 32
      for (int v = 0; v < kVectors; ++v) sums[i][v] += x * row[v];
    }
  }
#pragma GCC unroll 32
  for (int i = 0; i < kRows; ++i) {
#pragma GCC unroll 32
    for (int v = 0; v < kVectors; ++v) std::memcpy(c + i * c_row_stride + v * kFloats, &sums[i][v], sizeof(Vector));
  }
}

// The tile for the last rows of c, fewer than kRows.
template <int kFloats, int kRows, int kPanels>
inline __attribute__((always_inline)) void tile_of_height(int64_t rows, int64_t depth, StridedMatrix a, Panels b,
                                                          float* c, int64_t c_row_stride, bool accumulate) {
  if constexpr (kRows > 1) {
    if (rows < kRows) {
      return tile_of_height<kFloats, kRows - 1, kPanels>(rows, depth, a, b, c, c_row_stride, accumulate);
    }
  }
  tile<kFloats, kRows, kPanels>(depth, a, b, c, c_row_stride, accumulate);
}

// Tiles kPanels panels wide, then one panel at a time for the rest; each
// tile's panels stay in L1 while the rows of a pass.
template <int kFloats, int kRows, int kPanels>
inline __attribute__((always_inline)) void multiply(int64_t m, int64_t n, int64_t k, StridedMatrix a, Panels b,
                                                    float* c, int64_t c_row_stride, bool accumulate) {
  constexpr int64_t kTileWidth = kPanels * kPanelWidth;
  const auto each_row_tile = [&](int64_t column, const auto& run) {
    for (int64_t row = 0; row < m; row += kRows) {
      run(std::min<int64_t>(kRows, m - row), StridedMatrix{a.data + row * a.row_stride, a.row_stride, a.column_stride},
          c + row * c_row_stride + column);
    }
  };
  int64_t column = 0;
  for (; column + kTileWidth <= n; column += kTileWidth) {
    each_row_tile(column, [&](int64_t rows, StridedMatrix a_rows, float* c_tile) {
      tile_of_height<kFloats, kRows, kPanels>(rows, k, a_rows, b.from_column(column), c_tile, c_row_stride,
                                              accumulate);
    });
  }
  // Where c ends inside a panel, the tile works on a copy of c's part.
  float edge[kRows * kPanelWidth] = {};
  for (; column < n; column += kPanelWidth) {
    const int64_t columns = std::min(kPanelWidth, n - column);
    each_row_tile(column, [&](int64_t rows, StridedMatrix a_rows, float* c_tile) {
      if (columns == kPanelWidth) {
        return tile_of_height<kFloats, kRows, 1>(rows, k, a_rows, b.from_column(column), c_tile, c_row_stride,
                                                 accumulate);
      }
      if (accumulate) {
        for (int64_t i = 0; i < rows; ++i) std::copy_n(c_tile + i * c_row_stride, columns, edge + i * kPanelWidth);
      }
      tile_of_height<kFloats, kRows, 1>(rows, k, a_rows, b.from_column(column), edge, kPanelWidth, accumulate);
      for (int64_t i = 0; i < rows; ++i) std::copy_n(edge + i * kPanelWidth, columns, c_tile + i * c_row_stride);
    });
  }
}

// Tiles whose sums, panel rows and broadcast element fit the ISA's vector
// registers: 6 rows by two panels (6 x 4 vectors) of AVX-512's 32, which
// loads 10 vectors for 24 multiply-adds where 8 rows by one panel loaded 10
// for 16 and ran a tenth slower on attention's blocks; 3 x 4 of AVX2's 16
// (the panel row read from memory by the multiply-adds); one row of 8 in
// SSE2's 16.
void multiply_baseline(int64_t m, int64_t n, int64_t k, StridedMatrix a, Panels b, float* c, int64_t c_row_stride,
                       bool accumulate) {
  multiply<4, 1, 1>(m, n, k, a, b, c, c_row_stride, accumulate);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2,fma"))) void multiply_avx2(int64_t m, int64_t n, int64_t k, StridedMatrix a, Panels b,
                                                       float* c, int64_t c_row_stride, bool accumulate) {
  multiply<8, 3, 1>(m, n, k, a, b, c, c_row_stride, accumulate);
}

#if !defined(EMBER_CPU_MAX_ISA_X86_64_V3)
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"))) void multiply_avx512(
    int64_t m, int64_t n, int64_t k, StridedMatrix a, Panels b, float* c, int64_t c_row_stride, bool accumulate) {
  multiply<16, 6, 2>(m, n, k, a, b, c, c_row_stride, accumulate);
}
#endif
#endif

// One panel's columns of `source` (width of them) into `out`, kPanelWidth
// floats a row.
EMBER_CPU_ISA_CLONES void pack_panel(StridedMatrix source, int64_t rows, int64_t width, float multiplier, float* out) {
  if (source.row_stride == 1) {
    transpose_elements<kTransposeBlock<float>>(source.data, source.column_stride, out, kPanelWidth, rows, width);
  } else {
    for (int64_t r = 0; r < rows; ++r) {
      const float* in = source.data + r * source.row_stride;
      for (int64_t j = 0; j < width; ++j) out[r * kPanelWidth + j] = in[j * source.column_stride];
    }
  }
  for (int64_t r = 0; r < rows; ++r, out += kPanelWidth) {
    for (int64_t j = 0; j < width; ++j) out[j] *= multiplier;
    std::fill(out + width, out + kPanelWidth, 0.0f);
  }
}

}  // namespace

Panels panels_of(StridedMatrix source, int64_t rows, int64_t columns, float multiplier, std::vector<float>& storage) {
  if (multiplier == 1 && source.column_stride == 1 && columns % kPanelWidth == 0) {
    return {source.data, kPanelWidth, source.row_stride};
  }
  const int64_t panels = (columns + kPanelWidth - 1) / kPanelWidth;
  storage.resize(static_cast<size_t>(panels * rows * kPanelWidth));
  for (int64_t panel = 0; panel < panels; ++panel) {
    const int64_t first = panel * kPanelWidth;
    pack_panel({source.data + first * source.column_stride, source.row_stride, source.column_stride}, rows,
               std::min(kPanelWidth, columns - first), multiplier, storage.data() + panel * rows * kPanelWidth);
  }
  return {storage.data(), rows * kPanelWidth, kPanelWidth};
}

// Chosen by hand rather than through target_clones because the tile's
// height, not only its instructions, differs between ISAs.
std::vector<PanelMultiply> panel_multiplies() {
  std::vector<PanelMultiply> multiplies{multiply_baseline};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) multiplies.push_back(multiply_avx2);
#if !defined(EMBER_CPU_MAX_ISA_X86_64_V3)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
    multiplies.push_back(multiply_avx512);
  }
#endif
#endif
  return multiplies;
}

void multiply_panels(int64_t m, int64_t n, int64_t k, StridedMatrix a, Panels b, float* c, int64_t c_row_stride,
                     bool accumulate) {
  static const PanelMultiply widest = panel_multiplies().back();
  widest(m, n, k, a, b, c, c_row_stride, accumulate);
}

}  // namespace ember::cpu
