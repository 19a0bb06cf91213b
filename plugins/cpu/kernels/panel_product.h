// Products of small float32 matrices whose right operand is packed once and
// reused across many products (Note [Panel products]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_PANEL_PRODUCT_H_
#define EMBER_PLUGINS_CPU_KERNELS_PANEL_PRODUCT_H_

#include <cstdint>
#include <vector>

namespace ember::cpu {

// Note [Panel products]: blocked attention (Note [Blocked attention])
// multiplies the same blocks of K, V, Q and dout by one small block of
// scores after another (64 x 256 and the like). oneDNN's sgemm packs both
// operands on every call, which took a tenth of attention's time; here the
// caller gets each right operand as panels once: kPanelWidth columns each,
// whose rows lie a fixed stride apart, kPanelWidth contiguous floats a row.
// A row-major matrix a whole number of panels wide is that already; any
// other is packed (transposed through transpose_tile, zeros past the last
// column). The product is a register tile: a few rows of
// C by one panel stay in vector registers while the loop runs along the
// common dimension, each element of A broadcast against a panel row. A is
// read in place through its strides, so a transposed left operand costs
// nothing. The tile's height follows the ISA (AVX-512, AVX2 or the x86-64
// baseline, picked once at run time); every element of C sums its products
// in order along the common dimension, so the bits depend on the ISA only,
// never on the thread count or on where the caller cut its blocks of C.
inline constexpr int64_t kPanelWidth = 32;

// A right operand as panels, or the part of one from some row or column on.
struct Panels {
  const float* data;
  int64_t panel_stride;  // floats from one panel to the next
  int64_t row_stride;    // floats from one row of a panel to the next

  Panels from_row(int64_t row) const { return {data + row * row_stride, panel_stride, row_stride}; }
  // `column` is a multiple of kPanelWidth.
  Panels from_column(int64_t column) const {
    return {data + column / kPanelWidth * panel_stride, panel_stride, row_stride};
  }
};

// A left operand: element (i, p) at data[i * row_stride + p * column_stride].
struct StridedMatrix {
  const float* data;
  int64_t row_stride, column_stride;
};

// `multiplier` times the rows x columns matrix `source` as panels: `source`
// itself where it can be, else a copy packed into `storage` (resized as
// needed).
Panels panels_of(StridedMatrix source, int64_t rows, int64_t columns, float multiplier, std::vector<float>& storage);

// c = a b, or c += a b when `accumulate`: a is m x k, b k x n, c m x n with
// rows `c_row_stride` apart. Runs the widest of panel_multiplies().
void multiply_panels(int64_t m, int64_t n, int64_t k, StridedMatrix a, Panels b, float* c, int64_t c_row_stride,
                     bool accumulate);

// multiply_panels for each tile this CPU runs (the x86-64 baseline's, then
// AVX2's, then AVX-512's, as far as the CPU and EMBER_CPU_MAX_ISA allow),
// so that tests can check every one.
using PanelMultiply = void (*)(int64_t m, int64_t n, int64_t k, StridedMatrix a, Panels b, float* c,
                               int64_t c_row_stride, bool accumulate);
std::vector<PanelMultiply> panel_multiplies();

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_PANEL_PRODUCT_H_
