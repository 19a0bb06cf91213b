// Elementwise maps of floating ops through vector loops on every run shape
// (Note [Vector math clones]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_VECTOR_MAP_H_
#define EMBER_PLUGINS_CPU_KERNELS_VECTOR_MAP_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "elementwise.h"
#include "half_convert.h"

namespace ember::cpu {

// Note [Vector math clones]: the kernels of functions libmvec provides (Note
// [Vector math]) run their elements through loops with ISA clones (Note [ISA
// clones]): the vectoriser picks libmvec's variant for each clone's ISA, so
// AVX-512 machines call the 16-wide float variants (_ZGVeN16v_erff and
// friends, at most 4 ulp like the 4-wide SSE ones the baseline build calls)
// and AVX2 machines the 8-wide ones. Contiguous float32 and float64 runs go
// through those loops in place; any other run (strided, broadcast, float16
// or bfloat16) is staged through small buffers of the compute type first, so
// no element falls back to a scalar call, and a reduced float gives exactly
// what the float32 kernel gives for its widened value, rounded once.

// The type a floating op computes in: float64 for float64, else float32.
template <class T>
using VectorCompute = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Note [Position-independent vector math]: libmvec's vector variants and C's
// scalar functions may differ in the last bit, and a vectorised loop hands
// its last few elements to the scalar ones (or narrower vectors). Which
// elements those are depends on where a run starts and ends, and threads
// split runs wherever their chunks end, so a plain loop would give
// different bits for another thread count. map_contiguous therefore runs
// whole blocks of kVectorBlock elements (a multiple of every vector width,
// so the vectoriser leaves no remainder) and pads a final partial block to
// a whole one: every element takes the full-width vector path, whose result
// for a lane depends on that lane's value only.
inline constexpr int64_t kVectorBlock = 64;

namespace detail {
// One padded block; always inlined, so that it runs on the ISA of the clone
// that calls it (Note [ISA clones]).
template <class Op, class C, size_t kInputs, size_t... I>
inline __attribute__((always_inline)) void map_block(const Op& op, C* out, const C (&in)[kInputs][kVectorBlock],
                                                     std::index_sequence<I...>) {
  for (int64_t i = 0; i < kVectorBlock; ++i) out[i] = op(in[I][i]...);
}
}  // namespace detail

// out[i] = op(in[i]...) for n elements of contiguous C arrays.
template <class Op, class C, class... In>
EMBER_CPU_ISA_CLONES void map_contiguous(C* __restrict out, int64_t n, const In* __restrict... in) {
  static_assert((std::is_same_v<In, C> && ...));
  const Op op{};
  const int64_t whole = n - n % kVectorBlock;
  for (int64_t block = 0; block < whole; block += kVectorBlock) {
    for (int64_t i = block; i < block + kVectorBlock; ++i) out[i] = op(in[i]...);
  }
  if (whole == n) return;
  // The rest, each input padded with copies of its last element (a value
  // the op takes anyway, so no lane computes anything it would not).
  const C* inputs[] = {in...};
  C padded[sizeof...(In)][kVectorBlock];
  for (size_t k = 0; k < sizeof...(In); ++k) {
    std::copy(inputs[k] + whole, inputs[k] + n, padded[k]);
    std::fill(padded[k] + (n - whole), padded[k] + kVectorBlock, inputs[k][n - 1]);
  }
  C result[kVectorBlock];
  detail::map_block(op, result, padded, std::index_sequence_for<In...>{});
  std::copy(result, result + (n - whole), out + whole);
}

namespace detail {

// Elements staged at a time: buffers for a few operands stay in L1.
inline constexpr int64_t kStageSize = 256;

// The staging loops are always inlined, so that they convert on the ISA of
// the clone that calls them (Note [ISA clones]) rather than the baseline's.
template <class T, class C>
inline __attribute__((always_inline)) void stage_in(const char* from, int64_t stride, int64_t n, C* to) {
  if (stride == 0) {  // a broadcast scalar, such as a Python number
    std::fill(to, to + n, static_cast<C>(sdk::to_compute(*reinterpret_cast<const T*>(from))));
    return;
  }
  if constexpr (std::is_same_v<T, sdk::float16>) {
    if (stride == static_cast<int64_t>(sizeof(T))) {
      widen_float16(reinterpret_cast<const T*>(from), to, n);
      return;
    }
  }
  if (stride == static_cast<int64_t>(sizeof(T))) {
    const T* typed = reinterpret_cast<const T*>(from);
    for (int64_t i = 0; i < n; ++i) to[i] = static_cast<C>(sdk::to_compute(typed[i]));
  } else {
    for (int64_t i = 0; i < n; ++i)
      to[i] = static_cast<C>(sdk::to_compute(*reinterpret_cast<const T*>(from + i * stride)));
  }
}

template <class T, class C>
inline __attribute__((always_inline)) void stage_out(const C* from, int64_t n, char* to, int64_t stride) {
  if constexpr (std::is_same_v<T, sdk::float16>) {
    if (stride == static_cast<int64_t>(sizeof(T))) {
      narrow_float16(from, reinterpret_cast<T*>(to), n);
      return;
    }
  }
  if (stride == static_cast<int64_t>(sizeof(T))) {
    T* typed = reinterpret_cast<T*>(to);
    for (int64_t i = 0; i < n; ++i) typed[i] = sdk::convert<T>(from[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(to + i * stride) = sdk::convert<T>(from[i]);
  }
}

// One run through buffers of the compute type, or in place when the run is
// contiguous; always inlined into the clone that walks the rows.
template <class Op, class T, size_t... I>
inline __attribute__((always_inline)) void map_staged_run(char* const* ptrs, const int64_t* strides, int64_t n,
                                                          std::index_sequence<I...>) {
  using C = VectorCompute<T>;
  constexpr int64_t kSize = static_cast<int64_t>(sizeof(T));
  if constexpr (std::is_same_v<T, C>) {
    // An in-place op (out identical to an input) stages too: the contiguous
    // loop promises the vectoriser that its arrays do not overlap.
    if (strides[0] == kSize && ((strides[I + 1] == kSize && ptrs[I + 1] != ptrs[0]) && ...)) {
      map_contiguous<Op, C>(reinterpret_cast<C*>(ptrs[0]), n, reinterpret_cast<const C*>(ptrs[I + 1])...);
      return;
    }
  }
  C in[sizeof...(I)][kStageSize];
  C out[kStageSize];
  for (int64_t start = 0; start < n; start += kStageSize) {
    const int64_t m = std::min(kStageSize, n - start);
    (stage_in<T>(ptrs[I + 1] + start * strides[I + 1], strides[I + 1], m, in[I]), ...);
    map_contiguous<Op, C>(out, m, static_cast<const C*>(in[I])...);
    stage_out<T>(out, m, ptrs[0] + start * strides[0], strides[0]);
  }
}

template <class Op, class T, size_t... I>
EMBER_CPU_ISA_CLONES void map_run(char* const* ptrs, const int64_t* strides, int64_t n, const int64_t* row_strides,
                                  int64_t rows, std::index_sequence<I...> inputs) {
  char* row[] = {ptrs[0], ptrs[I + 1]...};
  for (int64_t r = 0; r < rows; ++r, advance_rows(row, row_strides)) map_staged_run<Op, T>(row, strides, n, inputs);
}

// Note [One-pass exact arithmetic]: +, -, *, /, negation, fabs, maximum and
// minimum are correctly rounded (or exact), so every lane of a vector loop
// gives the bits the scalar code gives, wherever a run starts or ends: they
// need neither map_contiguous's padded blocks nor staging. A float16 or
// bfloat16 element is widened, computed and rounded back in one pass, not
// through three float32 buffers, which took three times as long on a
// cache-resident add. Runs whose inputs are all contiguous, or contiguous
// beside one broadcast scalar (stride 0, as a Python number arrives), go
// through such loops on each ISA clone; any other run is staged. The
// conversions are flattened into each clone, since GCC would call float16's
// out of line, compiled for the baseline ISA, one element at a time.
// float16 runs are staged all the same: its conversion instructions (Note
// [Hardware float16]) outrun the one-pass bit arithmetic.
template <class Op, class T, size_t... I>
inline __attribute__((always_inline)) void map_exact_one_run(char* const* ptrs, const int64_t* strides, int64_t n,
                                                             std::index_sequence<I...> inputs) {
  using C = VectorCompute<T>;
  constexpr int64_t kSize = static_cast<int64_t>(sizeof(T));
  const Op op{};
  const auto widen = [](T x) { return static_cast<C>(sdk::to_compute(x)); };
  T* out = reinterpret_cast<T*>(ptrs[0]);
  if (strides[0] == kSize && ((strides[I + 1] == kSize) && ...)) {
    const T* in[] = {reinterpret_cast<const T*>(ptrs[I + 1])...};
    for (int64_t i = 0; i < n; ++i) out[i] = sdk::convert<T>(op(widen(in[I][i])...));
    return;
  }
  if constexpr (sizeof...(I) == 2) {
    if (strides[0] == kSize && strides[1] == kSize && strides[2] == 0) {
      const T* a = reinterpret_cast<const T*>(ptrs[1]);
      const C b = widen(*reinterpret_cast<const T*>(ptrs[2]));
      for (int64_t i = 0; i < n; ++i) out[i] = sdk::convert<T>(op(widen(a[i]), b));
      return;
    }
    if (strides[0] == kSize && strides[1] == 0 && strides[2] == kSize) {
      const C a = widen(*reinterpret_cast<const T*>(ptrs[1]));
      const T* b = reinterpret_cast<const T*>(ptrs[2]);
      for (int64_t i = 0; i < n; ++i) out[i] = sdk::convert<T>(op(a, widen(b[i])));
      return;
    }
  }
  map_staged_run<Op, T>(ptrs, strides, n, inputs);
}

template <class Op, class T, size_t... I>
EMBER_CPU_ISA_CLONES __attribute__((flatten)) void map_exact_run(char* const* ptrs, const int64_t* strides, int64_t n,
                                                                 const int64_t* row_strides, int64_t rows,
                                                                 std::index_sequence<I...> inputs) {
  char* row[] = {ptrs[0], ptrs[I + 1]...};
  for (int64_t r = 0; r < rows; ++r, advance_rows(row, row_strides)) map_exact_one_run<Op, T>(row, strides, n, inputs);
}

template <class Op, class T, size_t kInputs, class Run>
void map_floating(const ember_kernel_call& call, int64_t grain, Run run_of) {
  const auto run = [&]<size_t... I>(std::index_sequence<I...> inputs) {
    const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[I]...}, sdk::LoopOrder::Memory);
    run_elementwise(loop, grain,
                    [&](char* const* ptrs, const int64_t* strides, int64_t n, const int64_t* row_strides,
                        int64_t rows) { run_of(ptrs, strides, n, row_strides, rows, inputs); });
  };
  run(std::make_index_sequence<kInputs>{});
}

}  // namespace detail

// outputs[0] = Op{}(inputs...) elementwise for a floating T, every input of
// type T; Op takes and returns VectorCompute<T>. Runs of at most `grain`
// elements stay on the calling thread.
template <class Op, class T, size_t kInputs>
void map_vectorised(const ember_kernel_call& call, int64_t grain) {
  detail::map_floating<Op, T, kInputs>(
      call, grain, [](char* const* ptrs, const int64_t* strides, int64_t n, const int64_t* row_strides, int64_t rows,
                      auto inputs) { detail::map_run<Op, T>(ptrs, strides, n, row_strides, rows, inputs); });
}

// map_vectorised for an Op of exact arithmetic (Note [One-pass exact
// arithmetic]).
template <class Op, class T, size_t kInputs>
void map_exact(const ember_kernel_call& call, int64_t grain) {
  detail::map_floating<Op, T, kInputs>(
      call, grain, [](char* const* ptrs, const int64_t* strides, int64_t n, const int64_t* row_strides, int64_t rows,
                      auto inputs) {
        if constexpr (std::is_same_v<T, sdk::float16>) {
          detail::map_run<Op, T>(ptrs, strides, n, row_strides, rows, inputs);
        } else {
          detail::map_exact_run<Op, T>(ptrs, strides, n, row_strides, rows, inputs);
        }
      });
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_VECTOR_MAP_H_
