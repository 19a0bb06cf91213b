// Fused softmax and log_softmax and their backward ops (ops.md "Composite
// ops a backend may override"): Note [Fused softmax], Note [Fused softmax
// backward].
#include "vector_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels.h"
#include "lane_reduce.h"
#include "lines.h"
#include "transpose.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

// Note [Fused softmax]: the decomposition makes five tensors and streams x
// from memory three times; these kernels stream x in once and out once
// wherever a line fits in L2. Per line they find the maximum, the sum of
// exp(x - max), then write the result.
// - Along the last dimension of contiguous tensors, a line is contiguous.
//   One that fits in L2 takes three passes of which only the first reads
//   memory: the maximum and the sum are lane reductions (Note [Lane
//   reductions]) and the exponentials vector loops through libmvec (Note
//   [Vector math]). float32 and float64 softmax stores the exponentials in
//   `out` and scales them in place, one exp per element; float16/bfloat16
//   softmax keeps them in a float32 buffer (lines up to kBufferedLine) or
//   computes them again when writing, so that the result is rounded once;
//   log_softmax needs only their sum.
// - Along another dimension of contiguous tensors, viewed as [outer, n,
//   inner], a block of `width` neighbouring lines is processed together:
//   every pass walks the n rows of the block, each a contiguous run of
//   `width` elements, with one running maximum and sum per line, so the
//   loops over the run vectorise without reassociating anything. The width
//   keeps the block of x and out in L2 (kCachedBytes) across the passes.
// - A line (or a block at least a cache line wide) too long for L2 streams
//   instead: one pass over chunks that fit in L1 keeps a running maximum and
//   a sum rescaled whenever the maximum grows (the online softmax), and a
//   second pass writes. x is read twice from memory, not three times, and a
//   streaming block is kMaxWidth wide, so each row of it is whole pages'
//   worth of cache lines rather than one line per page.
// - Short lines of contiguous tensors are transposed in groups into a block
//   of lines (softmax_short_lines).
// - Any other layout goes line by line through strided loads.
// Threads split lines (or blocks of lines), never a line, so the result does
// not depend on the thread count.

// About 0.35 ns an element (Note [Grain sizes]).
constexpr int64_t kSoftmaxGrain = grain_for(0.35);
// Bytes of x and out that stay in L2 across the passes of a line or block.
constexpr int64_t kCachedBytes = 512 * 1024;
// Bytes of x a streaming chunk keeps in L1 between its two reads.
constexpr int64_t kChunkBytes = 16 * 1024;
// Most lines a block holds: its maximum and sum arrays live on the stack.
constexpr int64_t kMaxWidth = 256;

template <class T>
using Acc = VectorCompute<T>;

template <class T>
Acc<T> load(const T& value) {
  return static_cast<Acc<T>>(sdk::to_compute(value));
}

// The result for x - max, given log(sum) (log_softmax) or 1 / sum (softmax).
template <bool kLog, class C>
C normalised(C shifted, C factor) {
  return kLog ? shifted - factor : std::exp(shifted) * factor;
}

template <bool kLog, class C>
C factor_of(C total) {
  return kLog ? std::log(total) : C(1) / total;
}

// A running sum of exp(x - max) carried over to a new maximum. An unchanged
// maximum keeps it as it is (which keeps it 0 while every value so far was
// -inf, where exp(-inf - -inf) would make it NaN).
template <class C>
C rescaled(C total, C max, C new_max) {
  return max == new_max ? total : total * std::exp(max - new_max);
}

// Sum of exp(x[i] - shift) over a contiguous run, the exponentials staged
// through a small buffer so that both loops vectorise.
template <class T>
EMBER_CPU_ISA_CLONES Acc<T> sum_exp_shifted(const T* x, Acc<T> shift, int64_t n) {
  using C = Acc<T>;
  constexpr int64_t kStage = 1024;
  C stage[kStage];
  C total = 0;
  for (int64_t start = 0; start < n; start += kStage) {
    const int64_t m = std::min(kStage, n - start);
    for (int64_t i = 0; i < m; ++i) stage[i] = std::exp(load(x[start + i]) - shift);
    total += sum_of<C>(stage, m);
  }
  return total;
}

template <class T, bool kLog>
EMBER_CPU_ISA_CLONES void write_line(const T* x, Acc<T> max, Acc<T> factor, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = sdk::convert<T>(normalised<kLog>(load(x[i]) - max, factor));
}

// Longest float16/bfloat16 line whose exponentials softmax keeps in a
// float32 buffer on the stack between its two passes.
constexpr int64_t kBufferedLine = 4096;

template <class T, bool kLog>
EMBER_CPU_ISA_CLONES void softmax_cached_line(const T* x, T* out, int64_t n) {
  using C = Acc<T>;
  const C max = max_of<C>(x, n);
  if constexpr (!kLog && std::is_same_v<T, C>) {
    for (int64_t i = 0; i < n; ++i) out[i] = std::exp(x[i] - max);
    const C scale = C(1) / sum_of<C>(out, n);
    for (int64_t i = 0; i < n; ++i) out[i] *= scale;
  } else if (!kLog && n <= kBufferedLine) {
    C exps[kBufferedLine];
    for (int64_t i = 0; i < n; ++i) exps[i] = std::exp(load(x[i]) - max);
    const C scale = C(1) / sum_of<C>(exps, n);
    for (int64_t i = 0; i < n; ++i) out[i] = sdk::convert<T>(exps[i] * scale);
  } else {
    write_line<T, kLog>(x, max, factor_of<kLog>(sum_exp_shifted(x, max, n)), out, n);
  }
}

template <class T, bool kLog>
void softmax_streaming_line(const T* x, T* out, int64_t n) {
  using C = Acc<T>;
  constexpr int64_t kChunk = kChunkBytes / static_cast<int64_t>(sizeof(T));
  C max = -std::numeric_limits<C>::infinity();
  C total = 0;
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t m = std::min(kChunk, n - start);
    const C chunk_max = std::max(max, max_of<C>(x + start, m));
    total = rescaled(total, max, chunk_max) + sum_exp_shifted(x + start, chunk_max, m);
    max = chunk_max;
  }
  write_line<T, kLog>(x, max, factor_of<kLog>(total), out, n);
}

// Adds exp(x - max[j]) over rows [first, last) of a block to total[j] (and
// stores it in out when kStore). Rows are summed in groups of kSumRows first
// (blocked summation), so the rounding error of a long column grows with
// n / kSumRows + kSumRows rather than n. Always inlined, so that it runs on
// the ISA of the clone that calls it (Note [ISA clones]).
constexpr int64_t kSumRows = 64;

template <class T, bool kStore>
inline __attribute__((always_inline)) void add_exps(const T* x, T* out, int64_t first, int64_t last, int64_t row_stride,
                                                    int64_t width, const Acc<T>* max, Acc<T>* total) {
  using C = Acc<T>;
  C partial[kMaxWidth];
  for (int64_t group = first; group < last; group += kSumRows) {
    std::fill(partial, partial + width, C(0));
    for (int64_t r = group; r < std::min(last, group + kSumRows); ++r) {
      const T* row = x + r * row_stride;
      for (int64_t j = 0; j < width; ++j) {
        const C e = std::exp(load(row[j]) - max[j]);
        if constexpr (kStore) out[r * row_stride + j] = e;
        partial[j] += e;
      }
    }
    for (int64_t j = 0; j < width; ++j) total[j] += partial[j];
  }
}

// Lines j < width of a block whose element r of line j is at
// x[r * row_stride + j], with the block in L2.
template <class T, bool kLog>
EMBER_CPU_ISA_CLONES void softmax_cached_block(const T* x, T* out, int64_t n, int64_t row_stride, int64_t width) {
  using C = Acc<T>;
  C max[kMaxWidth];
  C total[kMaxWidth];
  std::fill(max, max + width, -std::numeric_limits<C>::infinity());
  std::fill(total, total + width, C(0));
  for (int64_t r = 0; r < n; ++r) {
    const T* row = x + r * row_stride;
    for (int64_t j = 0; j < width; ++j) max[j] = std::max(max[j], load(row[j]));
  }
  if constexpr (!kLog && std::is_same_v<T, C>) {
    add_exps<T, true>(x, out, 0, n, row_stride, width, max, total);
    for (int64_t j = 0; j < width; ++j) total[j] = C(1) / total[j];
    for (int64_t r = 0; r < n; ++r) {
      T* out_row = out + r * row_stride;
      for (int64_t j = 0; j < width; ++j) out_row[j] *= total[j];
    }
    return;
  }
  add_exps<T, false>(x, out, 0, n, row_stride, width, max, total);
  for (int64_t j = 0; j < width; ++j) total[j] = factor_of<kLog>(total[j]);
  for (int64_t r = 0; r < n; ++r) {
    const T* row = x + r * row_stride;
    T* out_row = out + r * row_stride;
    for (int64_t j = 0; j < width; ++j) out_row[j] = sdk::convert<T>(normalised<kLog>(load(row[j]) - max[j], total[j]));
  }
}

// The same for a block too tall for L2: chunks of rows that fit in L1.
template <class T, bool kLog>
EMBER_CPU_ISA_CLONES void softmax_streaming_block(const T* x, T* out, int64_t n, int64_t row_stride, int64_t width) {
  using C = Acc<T>;
  C max[kMaxWidth];
  C chunk_max[kMaxWidth];
  C total[kMaxWidth];
  std::fill(max, max + width, -std::numeric_limits<C>::infinity());
  std::fill(total, total + width, C(0));
  const int64_t chunk_rows = std::max<int64_t>(1, kChunkBytes / (width * static_cast<int64_t>(sizeof(T))));
  for (int64_t first = 0; first < n; first += chunk_rows) {
    const int64_t last = std::min(n, first + chunk_rows);
    std::copy(max, max + width, chunk_max);
    for (int64_t r = first; r < last; ++r) {
      const T* row = x + r * row_stride;
      for (int64_t j = 0; j < width; ++j) chunk_max[j] = std::max(chunk_max[j], load(row[j]));
    }
    for (int64_t j = 0; j < width; ++j) {
      total[j] = rescaled(total[j], max[j], chunk_max[j]);
      max[j] = chunk_max[j];
    }
    add_exps<T, false>(x, out, first, last, row_stride, width, max, total);
  }
  for (int64_t j = 0; j < width; ++j) total[j] = factor_of<kLog>(total[j]);
  for (int64_t r = 0; r < n; ++r) {
    const T* row = x + r * row_stride;
    T* out_row = out + r * row_stride;
    for (int64_t j = 0; j < width; ++j) out_row[j] = sdk::convert<T>(normalised<kLog>(load(row[j]) - max[j], total[j]));
  }
}

// Short contiguous lines ([N, 16] over its last dim) cost a line's reduction
// folds and loop set-up for a handful of elements each. Groups of
// kShortLine lines are transposed into a buffer (Note [Blocked transpose])
// instead, so that the group is one block of lines with each line a column,
// taken by softmax_cached_block, and transposed back.
constexpr int64_t kShortLine = 64;
constexpr int kShortLineBlock = 16;

template <class T, bool kLog>
void softmax_short_lines(const T* x, T* out, int64_t lines, int64_t n) {
  const int64_t groups = (lines + kShortLine - 1) / kShortLine;
  parallel_for(0, groups, std::max<int64_t>(1, kSoftmaxGrain / (kShortLine * n)), [&](int64_t begin, int64_t end) {
    T staged_x[kShortLine * kShortLine];
    T staged_out[kShortLine * kShortLine];
    for (int64_t group = begin; group < end; ++group) {
      const int64_t first = group * kShortLine;
      const int64_t count = std::min(kShortLine, lines - first);
      transpose_elements<kShortLineBlock>(x + first * n, n, staged_x, kShortLine, n, count);
      softmax_cached_block<T, kLog>(staged_x, staged_out, n, kShortLine, count);
      transpose_elements<kShortLineBlock>(staged_out, kShortLine, out + first * n, n, count, n);
    }
  });
}

// Lines of any strides, one at a time through strided loads.
template <class T, bool kLog>
void softmax_strided(const ember_kernel_call& call, int64_t dim) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  using C = Acc<T>;
  for_each_line(call, {&x, &out}, dim, kSoftmaxGrain, [&](char* const* starts) {
    const int64_t n = x.shape[dim];
    const int64_t x_stride = x.strides[dim];
    const int64_t out_stride = out.strides[dim];
    const T* src = reinterpret_cast<const T*>(starts[0]);
    T* dst = reinterpret_cast<T*>(starts[1]);
    C max = -std::numeric_limits<C>::infinity();
    for (int64_t i = 0; i < n; ++i) max = std::max(max, load(src[i * x_stride]));
    C total = 0;
    for (int64_t i = 0; i < n; ++i) total += std::exp(load(src[i * x_stride]) - max);
    const C factor = factor_of<kLog>(total);
    for (int64_t i = 0; i < n; ++i) {
      dst[i * out_stride] = sdk::convert<T>(normalised<kLog>(load(src[i * x_stride]) - max, factor));
    }
  });
}

// A contiguous tensor as [outer, n, inner] around the softmax dim.
struct LineLayout {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;

  bool empty() const { return outer == 0 || n == 0 || inner == 0; }
};

LineLayout line_layout(const DLTensor& t, int64_t dim) {
  LineLayout layout;
  for (int d = 0; d < dim; ++d) layout.outer *= t.shape[d];
  for (int d = static_cast<int>(dim) + 1; d < t.ndim; ++d) layout.inner *= t.shape[d];
  layout.n = t.shape[dim];
  return layout;
}

// fn(offset, lines) for each block of up to `width` neighbouring lines (of
// an inner dimension), the blocks in parallel.
template <class Fn>
void for_each_block(const LineLayout& layout, int64_t width, const Fn& fn) {
  const int64_t blocks = (layout.inner + width - 1) / width;
  parallel_for(0, layout.outer * blocks, std::max<int64_t>(1, kSoftmaxGrain / (layout.n * width)),
               [&](int64_t begin, int64_t end) {
                 for (int64_t unit = begin; unit < end; ++unit) {
                   const int64_t first = unit % blocks * width;
                   fn(unit / blocks * layout.n * layout.inner + first, std::min(width, layout.inner - first));
                 }
               });
}

template <class T, bool kLog>
void softmax_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  const int64_t dim = sdk::attr_int(call, "dim");
  if (dim < 0 || dim >= x.ndim || !sdk::is_contiguous(x) || !sdk::is_contiguous(out)) {
    return softmax_strided<T, kLog>(call, dim);
  }
  const LineLayout layout = line_layout(x, dim);
  if (layout.empty()) return;
  const auto [outer, n, inner] = layout;
  const T* src = reinterpret_cast<const T*>(sdk::data_ptr(x));
  T* dst = reinterpret_cast<T*>(sdk::data_ptr(out));
  constexpr int64_t kBytesPerElement = 2 * static_cast<int64_t>(sizeof(T));  // x and out
  if (inner == 1 && n <= kShortLine) {
    softmax_short_lines<T, kLog>(src, dst, outer, n);
    return;
  }
  if (inner == 1) {
    const bool cached = n * kBytesPerElement <= kCachedBytes;
    parallel_for(0, outer, std::max<int64_t>(1, kSoftmaxGrain / n), [&](int64_t begin, int64_t end) {
      for (int64_t line = begin; line < end; ++line) {
        if (cached) {
          softmax_cached_line<T, kLog>(src + line * n, dst + line * n, n);
        } else {
          softmax_streaming_line<T, kLog>(src + line * n, dst + line * n, n);
        }
      }
    });
    return;
  }
  // A cached block is as many whole cache lines of neighbouring lines as
  // fit in L2 (all of `inner` when that fits); a streaming one the widest.
  constexpr int64_t kLineElements = 64 / static_cast<int64_t>(sizeof(T));
  const int64_t fitting = std::min(kCachedBytes / (kBytesPerElement * n), kMaxWidth);
  const bool cached = fitting >= std::min(inner, kLineElements);
  const int64_t width =
      std::min(inner, cached ? std::max(fitting / kLineElements * kLineElements, kLineElements) : kMaxWidth);
  for_each_block(layout, width, [&](int64_t offset, int64_t lines) {
    if (cached) {
      softmax_cached_block<T, kLog>(src + offset, dst + offset, n, inner, lines);
    } else {
      softmax_streaming_block<T, kLog>(src + offset, dst + offset, n, inner, lines);
    }
  });
}

// Note [Fused softmax backward]: softmax_backward and log_softmax_backward
// take the forward's output, as PyTorch's kernels do:
//   softmax:     dx = y * (dy - sum(dy * y))
//   log_softmax: dx = dy - exp(out) * sum(dy)
// Per line, one pass sums and one writes; a line that fits in L2 is read
// from memory once. Blocks of neighbouring lines along a dimension other
// than the last walk rows of the block, as the forward does; any other
// layout goes line by line through strided loads.
template <bool kLog, class C>
C backward_of(C dy, C out, C dot) {
  return kLog ? dy - std::exp(out) * dot : out * (dy - dot);
}

template <class T, bool kLog>
EMBER_CPU_ISA_CLONES void softmax_backward_line(const T* dy, const T* out, T* dx, int64_t n) {
  using C = Acc<T>;
  const C dot = kLog ? sum_of<C>(dy, n)
                     : reduce_lanes(
                           int64_t{0}, n, C(0), [](C a, C b) { return a + b; },
                           [dy, out](int64_t i) { return load(dy[i]) * load(out[i]); });
  for (int64_t i = 0; i < n; ++i) dx[i] = sdk::convert<T>(backward_of<kLog>(load(dy[i]), load(out[i]), dot));
}

template <class T, bool kLog>
void softmax_backward_strided_line(const T* dy, int64_t dy_stride, const T* out, int64_t out_stride, T* dx,
                                   int64_t dx_stride, int64_t n) {
  using C = Acc<T>;
  C dot = 0;
  for (int64_t i = 0; i < n; ++i) {
    dot += kLog ? load(dy[i * dy_stride]) : load(dy[i * dy_stride]) * load(out[i * out_stride]);
  }
  for (int64_t i = 0; i < n; ++i) {
    dx[i * dx_stride] = sdk::convert<T>(backward_of<kLog>(load(dy[i * dy_stride]), load(out[i * out_stride]), dot));
  }
}

// Lines j < width of a block whose element r of line j is at
// [r * row_stride + j], rows summed in groups of kSumRows (as add_exps).
template <class T, bool kLog>
EMBER_CPU_ISA_CLONES void softmax_backward_block(const T* dy, const T* out, T* dx, int64_t n, int64_t row_stride,
                                                 int64_t width) {
  using C = Acc<T>;
  C dot[kMaxWidth];
  C partial[kMaxWidth];
  std::fill(dot, dot + width, C(0));
  for (int64_t group = 0; group < n; group += kSumRows) {
    std::fill(partial, partial + width, C(0));
    for (int64_t r = group; r < std::min(n, group + kSumRows); ++r) {
      const T* dy_row = dy + r * row_stride;
      const T* out_row = out + r * row_stride;
      for (int64_t j = 0; j < width; ++j) partial[j] += kLog ? load(dy_row[j]) : load(dy_row[j]) * load(out_row[j]);
    }
    for (int64_t j = 0; j < width; ++j) dot[j] += partial[j];
  }
  for (int64_t r = 0; r < n; ++r) {
    const T* dy_row = dy + r * row_stride;
    const T* out_row = out + r * row_stride;
    T* dx_row = dx + r * row_stride;
    for (int64_t j = 0; j < width; ++j) {
      dx_row[j] = sdk::convert<T>(backward_of<kLog>(load(dy_row[j]), load(out_row[j]), dot[j]));
    }
  }
}

template <class T, bool kLog>
void softmax_backward_kernel(const ember_kernel_call& call) {
  const DLTensor& dy = call.inputs[0];
  const DLTensor& out = call.inputs[1];
  const DLTensor& dx = call.outputs[0];
  const int64_t dim = sdk::attr_int(call, "dim");
  const bool contiguous = sdk::is_contiguous(dy) && sdk::is_contiguous(out) && sdk::is_contiguous(dx);
  if (dim < 0 || dim >= out.ndim || !contiguous) {
    for_each_line(call, {&dy, &out, &dx}, dim, kSoftmaxGrain, [&](char* const* starts) {
      softmax_backward_strided_line<T, kLog>(reinterpret_cast<const T*>(starts[0]), dy.strides[dim],
                                             reinterpret_cast<const T*>(starts[1]), out.strides[dim],
                                             reinterpret_cast<T*>(starts[2]), dx.strides[dim], out.shape[dim]);
    });
    return;
  }
  const LineLayout layout = line_layout(out, dim);
  if (layout.empty()) return;
  const auto [outer, n, inner] = layout;
  const T* grad = reinterpret_cast<const T*>(sdk::data_ptr(dy));
  const T* result = reinterpret_cast<const T*>(sdk::data_ptr(out));
  T* dst = reinterpret_cast<T*>(sdk::data_ptr(dx));
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kSoftmaxGrain / n), [&](int64_t begin, int64_t end) {
      for (int64_t line = begin; line < end; ++line) {
        softmax_backward_line<T, kLog>(grad + line * n, result + line * n, dst + line * n, n);
      }
    });
    return;
  }
  for_each_block(layout, std::min(inner, kMaxWidth), [&](int64_t offset, int64_t lines) {
    softmax_backward_block<T, kLog>(grad + offset, result + offset, dst + offset, n, inner, lines);
  });
}

}  // namespace

void register_softmax_kernels(const sdk::Registrar& r) {
  r.add_each("softmax", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&softmax_kernel<typename decltype(tag)::type, false>>; });
  r.add_each("log_softmax", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&softmax_kernel<typename decltype(tag)::type, true>>; });
  r.add_each("softmax_backward", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&softmax_backward_kernel<typename decltype(tag)::type, false>>;
  });
  r.add_each("log_softmax_backward", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&softmax_backward_kernel<typename decltype(tag)::type, true>>;
  });
}

}  // namespace ember::cpu
