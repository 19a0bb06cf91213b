// Elementwise maps of floating ops through vector loops on every run shape
// (Note [Vector math clones]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_VECTOR_MAP_H_
#define EMBER_PLUGINS_CPU_KERNELS_VECTOR_MAP_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "elementwise.h"

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

// out[i] = op(in[i]...) for n elements of contiguous C arrays.
template <class Op, class C, class... In>
EMBER_CPU_ISA_CLONES void map_contiguous(C* __restrict out, int64_t n, const In* __restrict... in) {
  const Op op{};
  for (int64_t i = 0; i < n; ++i) out[i] = op(in[i]...);
}

namespace detail {

// Elements staged at a time: buffers for a few operands stay in L1.
inline constexpr int64_t kStageSize = 256;

template <class T, class C>
void stage_in(const char* from, int64_t stride, int64_t n, C* to) {
  if (stride == static_cast<int64_t>(sizeof(T))) {
    const T* typed = reinterpret_cast<const T*>(from);
    for (int64_t i = 0; i < n; ++i) to[i] = static_cast<C>(sdk::to_compute(typed[i]));
  } else {
    for (int64_t i = 0; i < n; ++i)
      to[i] = static_cast<C>(sdk::to_compute(*reinterpret_cast<const T*>(from + i * stride)));
  }
}

template <class T, class C>
void stage_out(const C* from, int64_t n, char* to, int64_t stride) {
  if (stride == static_cast<int64_t>(sizeof(T))) {
    T* typed = reinterpret_cast<T*>(to);
    for (int64_t i = 0; i < n; ++i) typed[i] = sdk::convert<T>(from[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(to + i * stride) = sdk::convert<T>(from[i]);
  }
}

template <class Op, class T, size_t... I>
void map_run(char* const* ptrs, const int64_t* strides, int64_t n, std::index_sequence<I...>) {
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

}  // namespace detail

// outputs[0] = Op{}(inputs...) elementwise for a floating T, every input of
// type T; Op takes and returns VectorCompute<T>. Runs of at most `grain`
// elements stay on the calling thread.
template <class Op, class T, size_t kInputs>
void map_vectorised(const ember_kernel_call& call, int64_t grain) {
  const auto run = [&]<size_t... I>(std::index_sequence<I...> inputs) {
    const sdk::StridedLoop loop{&call.outputs[0], &call.inputs[I]...};
    parallel_for(0, loop.numel(), grain, [&](int64_t begin, int64_t end) {
      loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
        detail::map_run<Op, T>(ptrs, strides, n, inputs);
      });
    });
  };
  run(std::make_index_sequence<kInputs>{});
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_VECTOR_MAP_H_
