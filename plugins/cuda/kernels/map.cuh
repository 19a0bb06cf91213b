// Elementwise maps: out[i] = op(in[i]...) over the call's tensors, each
// input loaded as its storage type, computed in its compute type and the
// result converted to the output's storage type.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "launch.cuh"
#include "loop.cuh"
#include "scalar.cuh"

namespace ember::gpu {

// Elements per thread on the dense path: four elements of each operand
// travel as one aligned vector load or store.
inline constexpr int kVector = 4;

template <class T>
struct alignas(sizeof(T) * kVector) Pack {
  T v[kVector];
};

// A dense input: a contiguous run, or one element read throughout.
template <class T>
struct DenseInput {
  const T* data;
  int32_t scalar;
  __device__ T at(int64_t i) const { return data[scalar ? 0 : i]; }
  // Element j of the pack starting at `first` (a multiple of kVector); the
  // compiler merges the pack's element loads into one vector load.
  __device__ T in_pack(int64_t first, int j) const {
    return scalar ? data[0] : reinterpret_cast<const Pack<T>*>(data + first)->v[j];
  }
};

template <class Out, class... In, class Op, size_t... I>
__device__ void map_element(char* const* p, const Op& op, std::index_sequence<I...>) {
  *reinterpret_cast<Out*>(p[0]) = convert<Out>(op(to_compute(*reinterpret_cast<const In*>(p[I + 1]))...));
}

template <class Out, class Op, class... In>
__global__ void map_strided(Loop<1 + sizeof...(In)> loop, Op op) {
  for (int64_t i = global_thread(); i < loop.numel; i += grid_threads()) {
    char* p[1 + sizeof...(In)];
    loop.locate(i, p);
    map_element<Out, In...>(p, op, std::index_sequence_for<In...>{});
  }
}

// Packs of kVector where `aligned`, then the tail one element at a time.
template <class Out, class Op, class... In>
__global__ void map_dense(int64_t n, int32_t aligned, Out* out, Op op, DenseInput<In>... in) {
  int64_t start = 0;
  if (aligned) {
    const int64_t packs = n / kVector;
    for (int64_t k = global_thread(); k < packs; k += grid_threads()) {
      const int64_t first = k * kVector;
      Pack<Out> result;
#pragma unroll
      for (int j = 0; j < kVector; ++j) result.v[j] = convert<Out>(op(to_compute(in.in_pack(first, j))...));
      *reinterpret_cast<Pack<Out>*>(out + first) = result;
    }
    start = packs * kVector;
  }
  for (int64_t i = start + global_thread(); i < n; i += grid_threads()) {
    out[i] = convert<Out>(op(to_compute(in.at(i))...));
  }
}

template <class T>
bool pack_aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % sizeof(Pack<T>) == 0;
}

template <class Out, class... In, class Op, size_t... I>
void launch_map_loop(const CallContext& context, const Loop<1 + sizeof...(In)>& loop, Op op,
                     std::index_sequence<I...>) {
  const bool dense = loop.dense(0, sizeof(Out)) && ((loop.dense(I + 1, sizeof(In)) || loop.scalar(I + 1)) && ...);
  if (!dense) {
    map_strided<Out, Op, In...><<<context.blocks_for(loop.numel), kBlockThreads, 0, context.stream()>>>(loop, op);
    return;
  }
  const bool aligned =
      pack_aligned<Out>(loop.base[0]) && ((loop.scalar(I + 1) || pack_aligned<In>(loop.base[I + 1])) && ...);
  map_dense<Out, Op, In...><<<context.blocks_for(loop.numel, kVector), kBlockThreads, 0, context.stream()>>>(
      loop.numel, aligned, reinterpret_cast<Out*>(loop.base[0]), op,
      DenseInput<In>{reinterpret_cast<const In*>(loop.base[I + 1]), loop.scalar(I + 1)}...);
}

// Runs out = op(inputs...) over tensors of one shape (the catalogue hands
// elementwise kernels their inputs broadcast).
template <class Out, class... In, class Op>
void launch_map(const CallContext& context, const DLTensor& out,
                const std::array<const DLTensor*, sizeof...(In)>& inputs, Op op) {
  constexpr int N = 1 + sizeof...(In);
  std::array<const DLTensor*, N> tensors{&out};
  for (size_t k = 0; k < inputs.size(); ++k) tensors[k + 1] = inputs[k];
  const Loop<N> loop = make_loop<N>(tensors);
  if (loop.numel == 0) return;
  launch_map_loop<Out, In...>(context, loop, op, std::index_sequence_for<In...>{});
  check_launch(context.call().op_name);
}

}  // namespace ember::gpu
