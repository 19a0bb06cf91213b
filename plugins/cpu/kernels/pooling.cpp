// max_pool2d (values and argmax indices), avg_pool2d and their backward
// (ops.md "Composite ops a backend may override"): one pass over each
// [H, W] plane, planes in parallel. Inputs may have any strides; outputs
// are the contiguous tensors the core allocates.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

// About 1.4 ns an input element (Note [Grain sizes]).
constexpr int64_t kPoolingGrain = grain_for(1.4);

struct Window {
  int64_t kernel[2], stride[2], padding[2], dilation[2];
};

Window window_of(const ember_kernel_call& call, bool dilated) {
  const sdk::IntList kernel = sdk::attr_ints(call, "kernel_size");
  const sdk::IntList stride = sdk::attr_ints(call, "stride");
  const sdk::IntList padding = sdk::attr_ints(call, "padding");
  Window w{};
  for (int i = 0; i < 2; ++i) {
    w.kernel[i] = kernel[i];
    w.stride[i] = stride[i];
    w.padding[i] = padding[i];
    w.dilation[i] = dilated ? sdk::attr_ints(call, "dilation")[i] : 1;
  }
  return w;
}

// Strided access to a [N, C, H, W] tensor's planes.
template <class T>
struct Planes {
  // One [H, W] plane: splitting the plane number into (n, c) costs two
  // integer divisions, so kernels do it once per plane, not per element.
  struct Plane {
    char* base;
    int64_t row_stride, column_stride;  // bytes
    T& at(int64_t h, int64_t w) const { return *reinterpret_cast<T*>(base + h * row_stride + w * column_stride); }
  };

  char* base;
  int64_t channels, height, width;
  int64_t stride[4];  // bytes
  Planes(const DLTensor& t)
      : base(static_cast<char*>(sdk::data_ptr(t))), channels(t.shape[1]), height(t.shape[2]), width(t.shape[3]) {
    for (int d = 0; d < 4; ++d) stride[d] = t.strides[d] * static_cast<int64_t>(sizeof(T));
  }
  Plane plane(int64_t p) const {
    const int64_t n = p / channels, c = p % channels;
    return {base + n * stride[0] + c * stride[1], stride[2], stride[3]};
  }
};

template <class Fn>
void for_each_plane(const DLTensor& out, const Fn& fn) {
  const int64_t planes = out.shape[0] * out.shape[1];
  const int64_t plane_size = std::max<int64_t>(out.shape[2] * out.shape[3], 1);
  parallel_for(0, planes, std::max<int64_t>(1, kPoolingGrain / plane_size), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) fn(p);
  });
}

// The taps [first, last) of a window row or column that fall inside
// [0, size), where tap t reads position start + t * dilation.
struct Taps {
  int64_t first, last;
};

Taps taps_inside(int64_t start, int64_t kernel, int64_t dilation, int64_t size) {
  const int64_t first = start < 0 ? (-start + dilation - 1) / dilation : 0;
  const int64_t last = start >= size ? 0 : std::min(kernel, (size - 1 - start) / dilation + 1);
  return {first, std::max(first, last)};
}

// The windows of a max pool over [height, width] planes, with the in-bounds
// taps of every output row and column computed once per call: an integer
// division per window costs more than the window's comparisons.
struct MaxPoolWindows {
  Window w;
  std::vector<Taps> row_taps, column_taps;

  MaxPoolWindows(const Window& window, int64_t height, int64_t width, int64_t out_height, int64_t out_width)
      : w(window), row_taps(out_height), column_taps(out_width) {
    for (int64_t oh = 0; oh < out_height; ++oh) {
      row_taps[oh] = taps_inside(oh * w.stride[0] - w.padding[0], w.kernel[0], w.dilation[0], height);
    }
    for (int64_t ow = 0; ow < out_width; ++ow) {
      column_taps[ow] = taps_inside(ow * w.stride[1] - w.padding[1], w.kernel[1], w.dilation[1], width);
    }
  }

  // For every window of one plane, found(oh, ow, maximum, where) with
  // where = position(h, x) of the maximum, or -1 for a window with no
  // in-bounds cell; read(h, x) gives a cell's value. Padding never wins.
  // The first NaN wins, as in the decomposition's amax; ties go to the
  // first maximum.
  template <class Acc, class Read, class Position, class Found>
  void search(const Read& read, const Position& position, const Found& found) const {
    for (size_t oh = 0; oh < row_taps.size(); ++oh) {
      const int64_t h_start = static_cast<int64_t>(oh) * w.stride[0] - w.padding[0];
      const Taps rows = row_taps[oh];
      for (size_t ow = 0; ow < column_taps.size(); ++ow) {
        const int64_t x_start = static_cast<int64_t>(ow) * w.stride[1] - w.padding[1];
        const Taps columns = column_taps[ow];
        const auto for_each_tap = [&](const auto& visit) {
          for (int64_t i = rows.first; i < rows.last; ++i) {
            const int64_t h = h_start + i * w.dilation[0];
            for (int64_t j = columns.first; j < columns.last; ++j) {
              const int64_t x = x_start + j * w.dilation[1];
              visit(read(h, x), position(h, x));
            }
          }
        };
        // Selects, not branches: which element wins depends on the data, so
        // a branch would mispredict about every other time. NaN never wins
        // a comparison; a sum of the window's values, NaN when one of them
        // is (or for inf + -inf), tells when the window must be searched
        // again for its first NaN. NaNs are rare, so that search is too.
        Acc best = -std::numeric_limits<Acc>::infinity();
        int64_t best_position = -1;
        Acc nan_probe = 0;
        for_each_tap([&](Acc v, int64_t where) {
          nan_probe += v;
          best_position = v > best ? where : best_position;
          best = v > best ? v : best;
        });
        if (std::isnan(nan_probe)) {
          for_each_tap([&](Acc v, int64_t where) {
            if (std::isnan(v) && !std::isnan(best)) {
              best = v;
              best_position = where;
            }
          });
        }
        if (best_position < 0 && rows.first < rows.last && columns.first < columns.last) {
          // A window of -inf only: its first element.
          best_position = position(h_start + rows.first * w.dilation[0], x_start + columns.first * w.dilation[1]);
        }
        found(static_cast<int64_t>(oh), static_cast<int64_t>(ow), best, best_position);
      }
    }
  }
};

// Note [2x2 max pool]: the pooling of most CNNs (kernel 2, stride 2, no
// padding or dilation) over float32 planes with contiguous rows. Every window
// lies inside the plane and no two overlap, so a row of outputs is one loop
// over two input rows that the compiler vectorizes (selects, not branches:
// which tap wins depends on the data), and the backward writes each dx cell
// once instead of zeroing the plane and adding. The general search costs
// about 1.4 ns an input element, mostly mispredicted branches. The winner
// follows the general rules: the taps in order (a, b on the upper row, c, d
// below), strict comparisons so that ties go to the first, the first NaN
// wins; a row holding a NaN is chosen again tap by tap.
struct Pool2x2Row {
  const float* upper;  // input rows 2 * oh and 2 * oh + 1
  const float* lower;
  int64_t width;       // output columns
};

// Each window's maximum (into best) and winning tap, 0 to 3 (into which);
// true when the row holds a NaN, whose windows these rules do not cover.
EMBER_CPU_ISA_CLONES bool pool2x2_row_without_nans(const Pool2x2Row& row, float* __restrict best,
                                                   int32_t* __restrict which) {
  int32_t nan_seen = 0;
  for (int64_t ow = 0; ow < row.width; ++ow) {
    const float a = row.upper[2 * ow], b = row.upper[2 * ow + 1], c = row.lower[2 * ow], d = row.lower[2 * ow + 1];
    nan_seen |= static_cast<int32_t>(a != a) | static_cast<int32_t>(b != b) | static_cast<int32_t>(c != c) |
                static_cast<int32_t>(d != d);
    float max = a;
    int32_t tap = 0;
    tap = b > max ? 1 : tap;
    max = b > max ? b : max;
    tap = c > max ? 2 : tap;
    max = c > max ? c : max;
    tap = d > max ? 3 : tap;
    max = d > max ? d : max;
    best[ow] = max;
    which[ow] = tap;
  }
  return nan_seen != 0;
}

void pool2x2_row(const Pool2x2Row& row, float* best, int32_t* which) {
  if (!pool2x2_row_without_nans(row, best, which)) return;
  for (int64_t ow = 0; ow < row.width; ++ow) {
    const float taps[4] = {row.upper[2 * ow], row.upper[2 * ow + 1], row.lower[2 * ow], row.lower[2 * ow + 1]};
    for (int32_t tap = 0; tap < 4; ++tap) {
      if (std::isnan(taps[tap])) {
        best[ow] = taps[tap];
        which[ow] = tap;
        break;
      }
    }
  }
}

EMBER_CPU_ISA_CLONES void pool2x2_indices(const int32_t* __restrict which, int64_t width, int64_t upper_row_start,
                                          int64_t in_width, int64_t* __restrict indices) {
  for (int64_t ow = 0; ow < width; ++ow) {
    indices[ow] = upper_row_start + (which[ow] >> 1) * in_width + 2 * ow + (which[ow] & 1);
  }
}

// The gradient of one row of windows: dy to the winning tap, 0 elsewhere.
// The rows are zeroed first and each window's one cell stored after: a
// select per cell would keep the compiler from vectorizing the interleaved
// stores.
EMBER_CPU_ISA_CLONES void pool2x2_row_gradient(const int32_t* __restrict which, const float* __restrict dy,
                                               int64_t width, float* __restrict upper, float* __restrict lower) {
  std::fill(upper, upper + 2 * width, 0.0f);
  std::fill(lower, lower + 2 * width, 0.0f);
  for (int64_t ow = 0; ow < width; ++ow) {
    const int32_t tap = which[ow];
    float* row = tap < 2 ? upper : lower;
    // 0 + g, as the general kernel's sum into a zeroed cell gives (+0 for -0).
    row[2 * ow + (tap & 1)] = 0.0f + dy[ow];
  }
}

bool is_plain_2x2_pool(const ember_kernel_call& call, const DLTensor& in) {
  const Window w = window_of(call, /*dilated=*/true);
  for (int i = 0; i < 2; ++i) {
    if (w.kernel[i] != 2 || w.stride[i] != 2 || w.padding[i] != 0 || w.dilation[i] != 1) return false;
  }
  return in.strides[3] == 1;
}

// Rows of windows are walked in pieces of this many, whose winners fit on
// the stack (a thread_local buffer would outlive the pool's threads'
// kernels, out of a leak checker's sight).
constexpr int64_t kPool2x2Piece = 256;

// Calls fn(oh, first, input) for every piece of `width` windows in each of
// `rows` rows of windows over `plane`: its first window and its inputs.
template <class Fn>
void for_each_pool2x2_piece(const Planes<const float>::Plane& plane, int64_t rows, int64_t width, const Fn& fn) {
  for (int64_t oh = 0; oh < rows; ++oh) {
    for (int64_t first = 0; first < width; first += kPool2x2Piece) {
      fn(oh, first,
         Pool2x2Row{&plane.at(2 * oh, 2 * first), &plane.at(2 * oh + 1, 2 * first),
                    std::min(kPool2x2Piece, width - first)});
    }
  }
}

void max_pool2d_2x2(const ember_kernel_call& call) {
  const Planes<const float> in(call.inputs[0]);
  const Planes<float> values(call.outputs[0]);
  const Planes<int64_t> indices(call.outputs[1]);
  for_each_plane(call.outputs[0], [&](int64_t p) {
    int32_t which[kPool2x2Piece];
    const auto values_plane = values.plane(p);
    const auto indices_plane = indices.plane(p);
    for_each_pool2x2_piece(in.plane(p), values.height, values.width,
                           [&](int64_t oh, int64_t first, const Pool2x2Row& piece) {
                             pool2x2_row(piece, &values_plane.at(oh, first), which);
                             pool2x2_indices(which, piece.width, 2 * oh * in.width + 2 * first, in.width,
                                             &indices_plane.at(oh, first));
                           });
  });
}

void max_pool2d_backward_2x2(const ember_kernel_call& call) {
  const Planes<const float> dy(call.inputs[0]);
  const Planes<const float> in(call.inputs[1]);
  const Planes<float> dx(call.outputs[0]);
  const bool dy_rows_contiguous = call.inputs[0].strides[3] == 1;
  for_each_plane(call.outputs[0], [&](int64_t p) {
    float best[kPool2x2Piece];
    int32_t which[kPool2x2Piece];
    float dy_row[kPool2x2Piece];  // a strided row of dy, gathered
    const auto dy_plane = dy.plane(p);
    const auto dx_plane = dx.plane(p);
    for_each_pool2x2_piece(in.plane(p), dy.height, dy.width, [&](int64_t oh, int64_t first, const Pool2x2Row& piece) {
      const float* dy_values = &dy_plane.at(oh, first);
      if (!dy_rows_contiguous) {
        for (int64_t ow = 0; ow < piece.width; ++ow) dy_row[ow] = dy_plane.at(oh, first + ow);
        dy_values = dy_row;
      }
      pool2x2_row(piece, best, which);
      pool2x2_row_gradient(which, dy_values, piece.width, &dx_plane.at(2 * oh, 2 * first),
                           &dx_plane.at(2 * oh + 1, 2 * first));
    });
    // The last row and column of an odd plane lie in no window.
    for (int64_t h = 0; h < dx.height; ++h) {
      for (int64_t x = h < 2 * dy.height ? 2 * dy.width : 0; x < dx.width; ++x) dx_plane.at(h, x) = 0.0f;
    }
  });
}

// max_pool2d: x -> (values, indices), indices being h * W + w in the plane.
template <class T>
void max_pool2d_kernel(const ember_kernel_call& call) {
  if constexpr (std::is_same_v<T, float>) {
    if (is_plain_2x2_pool(call, call.inputs[0])) return max_pool2d_2x2(call);
  }
  const Planes<const T> in(call.inputs[0]);
  const Planes<T> values(call.outputs[0]);
  const Planes<int64_t> indices(call.outputs[1]);
  const MaxPoolWindows windows(window_of(call, /*dilated=*/true), in.height, in.width, values.height, values.width);
  using Acc = sdk::Compute<T>;
  for_each_plane(call.outputs[0], [&](int64_t p) {
    const auto in_plane = in.plane(p);
    const auto values_plane = values.plane(p);
    const auto indices_plane = indices.plane(p);
    windows.search<Acc>([&](int64_t h, int64_t x) { return sdk::to_compute(in_plane.at(h, x)); },
                        [&](int64_t h, int64_t x) { return h * in.width + x; },
                        [&](int64_t oh, int64_t ow, Acc best, int64_t index) {
                          values_plane.at(oh, ow) = sdk::convert<T>(best);
                          indices_plane.at(oh, ow) = index;
                        });
  });
}

// max_pool2d_backward: (dy, x) -> dx. Each dy cell goes to its window's
// maximum, found again in x as the forward found it; each plane of dx
// belongs to one thread, so the adds need no atomics.
template <class T>
void max_pool2d_backward_kernel(const ember_kernel_call& call) {
  if constexpr (std::is_same_v<T, float>) {
    if (is_plain_2x2_pool(call, call.inputs[1])) return max_pool2d_backward_2x2(call);
  }
  const Planes<const T> dy(call.inputs[0]);
  const Planes<const T> in(call.inputs[1]);
  const Planes<T> dx(call.outputs[0]);
  const MaxPoolWindows windows(window_of(call, /*dilated=*/true), in.height, in.width, dy.height, dy.width);
  using Acc = sdk::Compute<T>;
  for_each_plane(call.outputs[0], [&](int64_t p) {
    const auto dy_plane = dy.plane(p);
    const auto in_plane = in.plane(p);
    const auto dx_plane = dx.plane(p);
    for (int64_t h = 0; h < dx.height; ++h) {
      for (int64_t x = 0; x < dx.width; ++x) dx_plane.at(h, x) = sdk::convert<T>(0);
    }
    // Positions are byte offsets into the dx plane, so no division finds the cell.
    windows.search<Acc>([&](int64_t h, int64_t x) { return sdk::to_compute(in_plane.at(h, x)); },
                        [&](int64_t h, int64_t x) { return h * dx_plane.row_stride + x * dx_plane.column_stride; },
                        [&](int64_t oh, int64_t ow, Acc, int64_t offset) {
                          if (offset < 0) return;
                          T& cell = *reinterpret_cast<T*>(dx_plane.base + offset);
                          cell = sdk::convert<T>(sdk::to_compute(cell) + sdk::to_compute(dy_plane.at(oh, ow)));
                        });
  });
}

// The cells of a window that lie inside the input, and the divisor.
struct AvgCell {
  int64_t h0, h1, w0, w1, divisor;
};

AvgCell avg_cell(const Window& w, bool count_include_pad, int64_t height, int64_t width, int64_t oh, int64_t ow) {
  const int64_t h_start = oh * w.stride[0] - w.padding[0], w_start = ow * w.stride[1] - w.padding[1];
  // The window as counted with padding stops at the padded border.
  const int64_t h_end_padded = std::min(h_start + w.kernel[0], height + w.padding[0]);
  const int64_t w_end_padded = std::min(w_start + w.kernel[1], width + w.padding[1]);
  AvgCell c{std::max<int64_t>(h_start, 0), std::min(h_start + w.kernel[0], height), std::max<int64_t>(w_start, 0),
            std::min(w_start + w.kernel[1], width), 0};
  c.divisor = count_include_pad ? (h_end_padded - h_start) * (w_end_padded - w_start) : (c.h1 - c.h0) * (c.w1 - c.w0);
  return c;
}

template <class T>
void avg_pool2d_kernel(const ember_kernel_call& call) {
  const Window w = window_of(call, /*dilated=*/false);
  const bool count_include_pad = sdk::attr_bool(call, "count_include_pad");
  const Planes<const T> in(call.inputs[0]);
  const Planes<T> out(call.outputs[0]);
  using Acc = sdk::Compute<T>;
  for_each_plane(call.outputs[0], [&](int64_t p) {
    const auto in_plane = in.plane(p);
    const auto out_plane = out.plane(p);
    for (int64_t oh = 0; oh < out.height; ++oh) {
      for (int64_t ow = 0; ow < out.width; ++ow) {
        const AvgCell c = avg_cell(w, count_include_pad, in.height, in.width, oh, ow);
        Acc total = 0;
        for (int64_t h = c.h0; h < c.h1; ++h) {
          for (int64_t x = c.w0; x < c.w1; ++x) total += sdk::to_compute(in_plane.at(h, x));
        }
        out_plane.at(oh, ow) = sdk::convert<T>(total / static_cast<Acc>(c.divisor));
      }
    }
  });
}

// avg_pool2d_backward: dy [N, C, Ho, Wo] -> dx [N, C, H, W]. Each plane of
// dx belongs to one thread, so the scattered adds need no atomics.
template <class T>
void avg_pool2d_backward_kernel(const ember_kernel_call& call) {
  const Window w = window_of(call, /*dilated=*/false);
  const bool count_include_pad = sdk::attr_bool(call, "count_include_pad");
  const Planes<const T> dy(call.inputs[0]);
  const Planes<T> dx(call.outputs[0]);
  using Acc = sdk::Compute<T>;
  for_each_plane(call.outputs[0], [&](int64_t p) {
    const auto dy_plane = dy.plane(p);
    const auto dx_plane = dx.plane(p);
    for (int64_t h = 0; h < dx.height; ++h) {
      for (int64_t x = 0; x < dx.width; ++x) dx_plane.at(h, x) = sdk::convert<T>(0);
    }
    for (int64_t oh = 0; oh < dy.height; ++oh) {
      for (int64_t ow = 0; ow < dy.width; ++ow) {
        const AvgCell c = avg_cell(w, count_include_pad, dx.height, dx.width, oh, ow);
        const Acc share = sdk::to_compute(dy_plane.at(oh, ow)) / static_cast<Acc>(c.divisor);
        for (int64_t h = c.h0; h < c.h1; ++h) {
          for (int64_t x = c.w0; x < c.w1; ++x) dx_plane.at(h, x) = sdk::convert<T>(sdk::to_compute(dx_plane.at(h, x)) + share);
        }
      }
    }
  });
}

}  // namespace

void register_pooling_kernels(const sdk::Registrar& r) {
  r.add_each("max_pool2d", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&max_pool2d_kernel<typename decltype(tag)::type>>;
  });
  r.add_each("max_pool2d_backward", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&max_pool2d_backward_kernel<typename decltype(tag)::type>>;
  });
  r.add_each("avg_pool2d", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&avg_pool2d_kernel<typename decltype(tag)::type>>;
  });
  r.add_each("avg_pool2d_backward", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&avg_pool2d_backward_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
