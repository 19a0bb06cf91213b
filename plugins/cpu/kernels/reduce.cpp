// Reductions: sum, prod, mean, amax, amin, argmax, argmin (ops.md
// "Reductions"). `out` always arrives with the keepdim shape.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "lane_reduce.h"
#include "transpose.h"

namespace ember::cpu {
namespace {

// ---------------------------------------------------------------------------
// Reduction operators: Acc is the accumulator type, combine() is
// associative and also merges partial results.
// ---------------------------------------------------------------------------

// ops.md: floating sums accumulate in at least float32 (float64 for float64);
// integral sums and products are int64.
template <class T>
using accumulate_t =
    std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<sdk::is_floating_v<T>, float, int64_t>>;

template <class T>
struct SumOp {
  using Acc = accumulate_t<T>;
  using Out = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
  static Acc identity() { return Acc(0); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_integral_v<Acc>) {
      return sdk::wrap_add(a, b);
    } else {
      return a + b;
    }
  }
  static Out finish(Acc a, int64_t /*count*/) { return sdk::convert<Out>(a); }
};

template <class T>
struct MeanOp : SumOp<T> {
  static T finish(typename SumOp<T>::Acc a, int64_t count) {
    return sdk::convert<T>(a / static_cast<typename SumOp<T>::Acc>(count));
  }
};

template <class T>
struct ProdOp : SumOp<T> {
  using Acc = typename SumOp<T>::Acc;
  static Acc identity() { return Acc(1); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_integral_v<Acc>) {
      return sdk::wrap_mul(a, b);
    } else {
      return a * b;
    }
  }
};

// amax/amin; a NaN anywhere makes the result NaN.
template <class T, bool kMax>
struct ExtremumOp {
  using Acc = sdk::Compute<T>;
  using Out = T;
  static Acc identity() {
    if constexpr (std::is_same_v<Acc, bool>) {
      return !kMax;
    } else if constexpr (std::numeric_limits<Acc>::has_infinity) {
      return kMax ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::infinity();
    } else {
      return kMax ? std::numeric_limits<Acc>::lowest() : std::numeric_limits<Acc>::max();
    }
  }
  static Acc combine(Acc a, Acc b) { return extremum_propagating_nan<kMax>(a, b); }
  static Out finish(Acc a, int64_t /*count*/) { return sdk::convert<T>(a); }
};

template <class Op, class T>
typename Op::Acc load(const T& value) {
  return static_cast<typename Op::Acc>(sdk::to_compute(value));
}

// ---------------------------------------------------------------------------
// Geometry: x's dimensions split into kept and reduced ones, each list
// innermost first, size-1 dims dropped and neighbours merged by stride.
// ---------------------------------------------------------------------------

struct Dim {
  int64_t size;
  int64_t x_stride;    // elements
  int64_t out_stride;  // elements; 0 for reduced dims
};

struct DimList {
  static constexpr int kMaxDims = sdk::StridedLoop::kMaxDims;
  Dim dims[kMaxDims];
  int count = 0;
  int64_t numel = 1;

  void push(Dim dim) {
    numel *= dim.size;
    if (count > 0) {
      Dim& inner = dims[count - 1];
      if (dim.x_stride == inner.x_stride * inner.size && dim.out_stride == inner.out_stride * inner.size) {
        inner.size *= dim.size;
        return;
      }
    }
    if (count == kMaxDims) sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "tensor has too many dimensions");
    dims[count++] = dim;
  }

  // Calls fn(x_offset, out_offset) for linear indices [begin, end), with
  // dims[from..count) as the index space.
  template <class Fn>
  void for_each(int from, int64_t begin, int64_t end, Fn&& fn) const {
    if (begin >= end) return;
    int64_t index[kMaxDims];
    int64_t x_offset = 0;
    int64_t out_offset = 0;
    int64_t rest = begin;
    for (int d = from; d < count; ++d) {
      index[d] = rest % dims[d].size;
      rest /= dims[d].size;
      x_offset += index[d] * dims[d].x_stride;
      out_offset += index[d] * dims[d].out_stride;
    }
    for (int64_t i = begin; i < end; ++i) {
      fn(x_offset, out_offset);
      for (int d = from; d < count; ++d) {
        x_offset += dims[d].x_stride;
        out_offset += dims[d].out_stride;
        if (++index[d] < dims[d].size) break;
        x_offset -= dims[d].size * dims[d].x_stride;
        out_offset -= dims[d].size * dims[d].out_stride;
        index[d] = 0;
      }
    }
  }
};

struct Geometry {
  DimList kept;
  DimList reduced;
};

Geometry split_dims(const DLTensor& x, const DLTensor& out, const bool* is_reduced) {
  Geometry g;
  for (int d = x.ndim - 1; d >= 0; --d) {
    if (x.shape[d] == 1) continue;
    if (is_reduced[d]) {
      g.reduced.push({x.shape[d], x.strides[d], 0});
    } else {
      g.kept.push({x.shape[d], x.strides[d], out.strides[d]});
    }
  }
  return g;
}

// ---------------------------------------------------------------------------
// Value reductions
// ---------------------------------------------------------------------------

// A summed element costs about 0.03 ns, one of a short row (transposed
// first) about 0.12 ns, an argmax candidate about 0.27 ns (Note [Grain
// sizes]). kReduceGrain also sets how many partial results a single-output
// reduction combines, so it must not depend on the machine.
constexpr int64_t kReduceGrain = grain_for(0.03);
constexpr int64_t kShortRowGrain = grain_for(0.12);
constexpr int64_t kArgExtremumGrain = grain_for(0.27);

// How many partial results a single-output reduction combines: set by the
// size alone, so the result is the same for every thread count.
int64_t partial_count(int64_t numel) {
  constexpr int64_t kMaxPartials = 64;
  return std::clamp<int64_t>(numel / kReduceGrain, 1, kMaxPartials);
}

// Reduces n elements at p with the given element stride in lanes (Note
// [Lane reductions]), so float32 sums stay accurate.
template <class Op, class T>
typename Op::Acc reduce_run(const T* p, int64_t n, int64_t stride) {
  const auto combine = [](typename Op::Acc a, typename Op::Acc b) { return Op::combine(a, b); };
  if (stride == 1) {
    return reduce_lanes(int64_t{0}, n, Op::identity(), combine, [p](int64_t i) { return load<Op>(p[i]); });
  }
  return reduce_lanes(int64_t{0}, n, Op::identity(), combine,
                      [p, stride](int64_t i) { return load<Op>(p[i * stride]); });
}

// A single output: split x in row-major chunks across threads and merge the
// partial results in chunk order.
template <class Op, class T>
typename Op::Acc reduce_all(const DLTensor& x) {
  using Acc = typename Op::Acc;
  const sdk::StridedLoop loop{&x};
  const auto reduce_chunk = [&](int64_t begin, int64_t end) {
    Acc acc = Op::identity();
    loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      const int64_t stride = strides[0] / static_cast<int64_t>(sizeof(T));
      acc = Op::combine(acc, reduce_run<Op>(reinterpret_cast<const T*>(ptrs[0]), n, stride));
    });
    return acc;
  };
  const int64_t chunks = partial_count(loop.numel());
  if (chunks == 1) return reduce_chunk(0, loop.numel());
  std::vector<Acc> partial(static_cast<size_t>(chunks));
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const sdk::Range r = sdk::split_range(loop.numel(), chunks, c);
      partial[static_cast<size_t>(c)] = reduce_chunk(r.begin, r.end);
    }
  });
  Acc acc = Op::identity();
  for (Acc p : partial) acc = Op::combine(acc, p);
  return acc;
}

// Calls fn(x_base, out_base, first, count) for the outputs in blocks of at
// most `width` neighbours along the innermost kept dim: outputs `first` to
// `first + count` of that dim, at offsets x_base and out_base of the outer
// kept dims. The blocks are split over threads, each one whole on one.
template <class Fn>
void for_each_output_block(const Geometry& g, int64_t width, const Fn& fn) {
  const Dim neighbours = g.kept.dims[0];
  const int64_t blocks = (neighbours.size + width - 1) / width;
  const int64_t units = g.kept.numel / neighbours.size * blocks;
  const int64_t grain = std::max<int64_t>(1, kReduceGrain / (width * std::max<int64_t>(g.reduced.numel, 1)));
  parallel_for(0, units, grain, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t first = unit % blocks * width;
      const int64_t count = std::min(width, neighbours.size - first);
      g.kept.for_each(1, unit / blocks, unit / blocks + 1,
                      [&](int64_t x_base, int64_t out_base) { fn(x_base, out_base, first, count); });
    }
  });
}

// The runs of `count` neighbouring outputs (along the innermost kept dim,
// `output_stride` elements apart in x), each run at most kPairwiseBlock
// long along the innermost reduced dim: every output's runs are fed into
// its own set of lanes, folded once, so an output made of many short runs
// (summing [64, 1024, 256] over dims 0 and 2) costs one fold, not one per
// run. The outputs take turns run by run, which reads x in address order
// where one output at a time would jump a whole slab between its runs and
// keep as many streams in flight as it has runs. Each output's lanes see
// the same elements in the same order either way.
inline constexpr int64_t kInterleavedOutputs = 16;

template <class Op, class T>
EMBER_CPU_ISA_CLONES void reduce_runs_in_lanes(const T* x, const DimList& reduced, int64_t outer_count,
                                               int64_t output_stride, int64_t count, typename Op::Acc* results) {
  using Acc = typename Op::Acc;
  const Dim inner = reduced.dims[0];
  const auto combine = [](Acc a, Acc b) { return Op::combine(a, b); };
  Acc lanes[kInterleavedOutputs][kLanes];
  for (int64_t k = 0; k < count; ++k) std::fill(lanes[k], lanes[k] + kLanes, Op::identity());
  reduced.for_each(1, 0, outer_count, [&](int64_t x_offset, int64_t) {
    for (int64_t k = 0; k < count; ++k) {
      const T* p = x + k * output_stride + x_offset;
      if (inner.x_stride == 1) {
        accumulate_lanes(lanes[k], 0, inner.size, Op::identity(), combine, [p](int64_t i) { return load<Op>(p[i]); });
      } else {
        const int64_t stride = inner.x_stride;
        accumulate_lanes(lanes[k], 0, inner.size, Op::identity(), combine,
                         [p, stride](int64_t i) { return load<Op>(p[i * stride]); });
      }
    }
  });
  for (int64_t k = 0; k < count; ++k) results[k] = fold_lanes(lanes[k], combine);
}

// Several outputs, reduced dims innermost enough: each output a set of runs
// along the innermost reduced dim.
template <class Op, class T>
void reduce_rows(const Geometry& g, const T* x, typename Op::Out* out) {
  using Acc = typename Op::Acc;
  const Dim inner = g.reduced.count > 0 ? g.reduced.dims[0] : Dim{1, 0, 0};
  const int64_t outer_count = inner.size == 0 ? 0 : g.reduced.numel / inner.size;
  if (outer_count > 1 && inner.size <= kPairwiseBlock) {
    const Dim neighbours = g.kept.dims[0];
    for_each_output_block(g, kInterleavedOutputs, [&](int64_t x_base, int64_t out_base, int64_t first, int64_t count) {
      Acc results[kInterleavedOutputs];
      reduce_runs_in_lanes<Op>(x + x_base + first * neighbours.x_stride, g.reduced, outer_count, neighbours.x_stride,
                               count, results);
      for (int64_t k = 0; k < count; ++k) {
        out[out_base + (first + k) * neighbours.out_stride] = Op::finish(results[k], g.reduced.numel);
      }
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kReduceGrain / std::max<int64_t>(g.reduced.numel, 1));
  parallel_for(0, g.kept.numel, grain, [&](int64_t begin, int64_t end) {
    g.kept.for_each(0, begin, end, [&](int64_t x_base, int64_t out_offset) {
      Acc acc = Op::identity();
      g.reduced.for_each(1, 0, outer_count, [&](int64_t x_offset, int64_t) {
        acc = Op::combine(acc, reduce_run<Op>(x + x_base + x_offset, inner.size, inner.x_stride));
      });
      out[out_offset] = Op::finish(acc, g.reduced.numel);
    });
  });
}

// Several outputs, each reducing one short contiguous run (summing [N, 16]
// over its last dim): a lane reduction per output would be mostly its fold
// (Note [Lane reductions]). Instead kGroup neighbouring runs are transposed
// into a buffer (Note [Blocked transpose]) and reduced together, one lane
// per output combining its run in order.
constexpr int64_t kShortRun = 64;
constexpr int64_t kGroup = 64;
// Blocks of 8 a side transpose these short groups faster than the cache-line
// wide ones the copy kernel uses (2.7 ms against 4.4 ms for [1M, 16] on one
// core): a group is only a few blocks, which then fit in registers.
constexpr int kShortRowBlock = 8;

bool has_short_rows(const Geometry& g) {
  return g.reduced.count == 1 && g.reduced.dims[0].x_stride == 1 && g.reduced.dims[0].size <= kShortRun;
}

// out[j * out_stride] = the reduction of stage[k * kGroup + j] over k < n,
// for j < count.
template <class Op, class T>
EMBER_CPU_ISA_CLONES void reduce_staged(const T* stage, int64_t n, int64_t count, typename Op::Out* out,
                                        int64_t out_stride) {
  typename Op::Acc lanes[kGroup];
  std::fill(lanes, lanes + kGroup, Op::identity());
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t j = 0; j < count; ++j) lanes[j] = Op::combine(lanes[j], load<Op>(stage[k * kGroup + j]));
  }
  for (int64_t j = 0; j < count; ++j) out[j * out_stride] = Op::finish(lanes[j], n);
}

template <class Op, class T>
void reduce_short_rows(const Geometry& g, const T* x, typename Op::Out* out) {
  const int64_t n = g.reduced.dims[0].size;
  const Dim rows = g.kept.dims[0];
  const int64_t groups = (rows.size + kGroup - 1) / kGroup;
  const int64_t units = g.kept.numel / rows.size * groups;
  parallel_for(0, units, std::max<int64_t>(1, kShortRowGrain / (kGroup * n)), [&](int64_t begin, int64_t end) {
    T stage[kShortRun * kGroup];
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t first = unit % groups * kGroup;
      const int64_t count = std::min(kGroup, rows.size - first);
      g.kept.for_each(1, unit / groups, unit / groups + 1, [&](int64_t x_base, int64_t out_base) {
        transpose_elements<kShortRowBlock>(x + x_base + first * rows.x_stride, rows.x_stride, stage, kGroup, n, count);
        reduce_staged<Op>(stage, n, count, out + out_base + first * rows.out_stride, rows.out_stride);
      });
    }
  });
}

// Several outputs whose innermost kept dim is contiguous in x (e.g. summing
// over rows): accumulate a block of neighbouring outputs together so every
// load is contiguous. Rows are summed in groups of kRowBlock first (blocked
// summation) to bound the rounding error of long columns.
// acc[j] = combine(acc[j], row[j]) for j < width: one vector loop per row
// of a column reduction, on the machine's ISA.
template <class Op, class T>
EMBER_CPU_ISA_CLONES void combine_row(const T* row, int64_t width, typename Op::Acc* acc) {
  for (int64_t j = 0; j < width; ++j) acc[j] = Op::combine(acc[j], load<Op>(row[j]));
}

template <class Op, class T>
void reduce_columns(const Geometry& g, const T* x, typename Op::Out* out) {
  using Acc = typename Op::Acc;
  // Accumulators (total and block) for this many outputs fit in L1; rows
  // this long keep the hardware prefetcher streaming.
  constexpr int64_t kWidth = 4096 / sizeof(Acc);
  constexpr int64_t kRowBlock = 128;
  const Dim column = g.kept.dims[0];
  for_each_output_block(g, kWidth, [&](int64_t x_base, int64_t out_base, int64_t first, int64_t width) {
    Acc total[kWidth];
    Acc block[kWidth];
    std::fill(total, total + width, Op::identity());
    std::fill(block, block + width, Op::identity());
    int64_t rows = 0;
    g.reduced.for_each(0, 0, g.reduced.numel, [&](int64_t x_offset, int64_t) {
      combine_row<Op>(x + x_base + x_offset + first, width, block);
      if (++rows == kRowBlock) {
        combine_row<Op>(block, width, total);
        std::fill(block, block + width, Op::identity());
        rows = 0;
      }
    });
    for (int64_t j = 0; j < width; ++j) {
      out[out_base + (first + j) * column.out_stride] = Op::finish(Op::combine(total[j], block[j]), g.reduced.numel);
    }
  });
}

// The reduced-dims mask from `dims` (empty: every dim).
void reduced_mask(const ember_kernel_call& call, int ndim, bool* mask) {
  const std::vector<bool> reduced = sdk::reduced_dims(call, ndim);
  std::copy(reduced.begin(), reduced.end(), mask);
}

template <class Op, class T>
void reduce_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  if (out.ndim != x.ndim) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              std::string(call.op_name) + ": out must have the keepdim shape (rank of x)");
  }
  if (x.ndim > sdk::StridedLoop::kMaxDims) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "tensor has too many dimensions");
  }
  bool mask[sdk::StridedLoop::kMaxDims];
  reduced_mask(call, x.ndim, mask);
  const Geometry g = split_dims(x, out, mask);
  const T* x_data = reinterpret_cast<const T*>(sdk::data_ptr(x));
  auto* out_data = reinterpret_cast<typename Op::Out*>(sdk::data_ptr(out));
  if (g.kept.numel == 0) return;
  if (g.kept.numel == 1) {
    *out_data = Op::finish(reduce_all<Op, T>(x), g.reduced.numel);
  } else if (g.kept.dims[0].x_stride == 1 && g.reduced.count > 0) {
    reduce_columns<Op>(g, x_data, out_data);
  } else if (has_short_rows(g)) {
    reduce_short_rows<Op>(g, x_data, out_data);
  } else {
    reduce_rows<Op>(g, x_data, out_data);
  }
}

// ---------------------------------------------------------------------------
// argmax / argmin
// ---------------------------------------------------------------------------

// Whether v replaces best: strictly more extreme (so the first of equal
// extremes wins), and the first NaN wins over everything.
template <bool kMax, class V>
bool is_better(V v, V best) {
  if (best != best) return false;
  if (v != v) return true;
  return kMax ? v > best : v < best;
}

template <class T>
struct Candidate {
  sdk::Compute<T> value;
  int64_t index;
};

// Index of the first extreme of n contiguous values (the first NaN, if
// any): kArgLanes candidates, lane j taking elements j, j + kArgLanes, ...
// with strict comparisons, so that it keeps its own first extreme and the
// loop is vector selects; then the best candidate, the lowest index among
// equals, and the elements after the last whole group, whose indices are
// higher than every candidate's.
constexpr int64_t kArgLanes = 64;

template <bool kMax, class T>
EMBER_CPU_ISA_CLONES int64_t arg_extremum_run(const T* p, int64_t n) {
  using V = sdk::Compute<T>;
  const int64_t whole = n < kArgLanes ? 0 : n / kArgLanes * kArgLanes;
  Candidate<T> winner{sdk::to_compute(p[0]), 0};
  if (whole > 0) {
    V best[kArgLanes];
    int64_t index[kArgLanes];
    for (int64_t j = 0; j < kArgLanes; ++j) {
      best[j] = sdk::to_compute(p[j]);
      index[j] = j;
    }
    for (int64_t i = kArgLanes; i < whole; i += kArgLanes) {
      for (int64_t j = 0; j < kArgLanes; ++j) {
        const V v = sdk::to_compute(p[i + j]);
        const bool better = (best[j] == best[j]) & ((v != v) | (kMax ? v > best[j] : v < best[j]));
        best[j] = better ? v : best[j];
        index[j] = better ? i + j : index[j];
      }
    }
    winner = {best[0], index[0]};
    for (int64_t j = 1; j < kArgLanes; ++j) {
      if (is_better<kMax>(best[j], winner.value) ||
          (!is_better<kMax>(winner.value, best[j]) && index[j] < winner.index)) {
        winner = {best[j], index[j]};
      }
    }
  }
  for (int64_t i = std::max<int64_t>(whole, 1); i < n; ++i) {
    const V v = sdk::to_compute(p[i]);
    if (is_better<kMax>(v, winner.value)) winner = {v, i};
  }
  return winner.index;
}

template <bool kMax, class T>
int64_t arg_extremum_flat(const DLTensor& x) {
  const sdk::StridedLoop loop{&x};
  const auto scan = [&](int64_t begin, int64_t end) {
    Candidate<T> best{sdk::Compute<T>{}, -1};
    int64_t position = begin;
    loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i, ++position) {
        const auto v = sdk::to_compute(*reinterpret_cast<const T*>(ptrs[0] + i * strides[0]));
        if (best.index < 0 || is_better<kMax>(v, best.value)) best = {v, position};
      }
    });
    return best;
  };
  const int64_t chunks = partial_count(loop.numel());
  if (chunks == 1) return scan(0, loop.numel()).index;
  std::vector<Candidate<T>> partial(static_cast<size_t>(chunks));
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const sdk::Range r = sdk::split_range(loop.numel(), chunks, c);
      partial[static_cast<size_t>(c)] = scan(r.begin, r.end);
    }
  });
  Candidate<T> best = partial[0];
  for (const Candidate<T>& c : partial) {
    if (is_better<kMax>(c.value, best.value)) best = c;
  }
  return best.index;
}

template <bool kMax, class T>
void arg_extremum_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  int64_t* out_data = reinterpret_cast<int64_t*>(sdk::data_ptr(out));
  const int64_t dim = sdk::attr_int(call, "dim");
  if (x.ndim == 0 || dim == -1) {
    *out_data = arg_extremum_flat<kMax, T>(x);
    return;
  }
  if (dim < 0 || dim >= x.ndim || x.ndim > sdk::StridedLoop::kMaxDims || out.ndim != x.ndim) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              std::string(call.op_name) + ": dim " + std::to_string(dim) + " or out's rank is invalid");
  }
  bool mask[sdk::StridedLoop::kMaxDims] = {};
  mask[dim] = true;
  const Geometry g = split_dims(x, out, mask);
  const T* x_data = reinterpret_cast<const T*>(sdk::data_ptr(x));
  const int64_t n = x.shape[dim];
  const int64_t stride = x.strides[dim];
  const int64_t grain = std::max<int64_t>(1, kArgExtremumGrain / std::max<int64_t>(n, 1));
  parallel_for(0, g.kept.numel, grain, [&](int64_t begin, int64_t end) {
    g.kept.for_each(0, begin, end, [&](int64_t x_offset, int64_t out_offset) {
      const T* p = x_data + x_offset;
      if (stride == 1) {
        out_data[out_offset] = arg_extremum_run<kMax>(p, n);
        return;
      }
      Candidate<T> best{sdk::to_compute(p[0]), 0};
      for (int64_t i = 1; i < n; ++i) {
        const auto v = sdk::to_compute(p[i * stride]);
        if (is_better<kMax>(v, best.value)) best = {v, i};
      }
      out_data[out_offset] = best.index;
    });
  });
}

template <template <class> class Op, class Types>
void add_reduction(const sdk::Registrar& r, const char* name, Types types) {
  r.add_each(name, types, [](auto tag) {
    using T = typename decltype(tag)::type;
    return &sdk::kernel_entry<&reduce_kernel<Op<T>, T>>;
  });
}

template <class T>
using AmaxOp = ExtremumOp<T, true>;
template <class T>
using AminOp = ExtremumOp<T, false>;

}  // namespace

void register_reduce_kernels(const sdk::Registrar& r) {
  add_reduction<SumOp>(r, "sum", sdk::AllTypes{});
  add_reduction<ProdOp>(r, "prod", sdk::AllTypes{});
  add_reduction<MeanOp>(r, "mean", sdk::FloatingTypes{});
  add_reduction<AmaxOp>(r, "amax", sdk::AllTypes{});
  add_reduction<AminOp>(r, "amin", sdk::AllTypes{});
  r.add_each("argmax", sdk::NumericTypes{},
             [](auto tag) { return &sdk::kernel_entry<&arg_extremum_kernel<true, typename decltype(tag)::type>>; });
  r.add_each("argmin", sdk::NumericTypes{},
             [](auto tag) { return &sdk::kernel_entry<&arg_extremum_kernel<false, typename decltype(tag)::type>>; });
}

}  // namespace ember::cpu
