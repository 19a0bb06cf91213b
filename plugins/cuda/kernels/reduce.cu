// Reductions: sum, prod, mean, amax, amin, argmax, argmin (ops.md
// "Reductions"). `out` arrives with x's rank (keepdim shape).
#include <cmath>
#include <limits>

#include "elementwise_ops.cuh"
#include "kernels.h"
#include "launch.cuh"
#include "loop.cuh"
#include "reducers.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

template <class V>
__device__ V shuffle_down(V v, int delta) {
  if constexpr (std::is_same_v<V, bool>) {
    return EMBER_GPU_SHFL_DOWN(static_cast<int>(v), delta) != 0;
  } else if constexpr (std::is_arithmetic_v<V>) {
    return EMBER_GPU_SHFL_DOWN(v, delta);
  } else {
    return {shuffle_down(v.value, delta), shuffle_down(v.index, delta)};
  }
}

// The block's combined value, valid in thread 0. Every thread must call it.
template <class R>
__device__ typename R::Acc block_reduce(typename R::Acc v, const R& r) {
  using Acc = typename R::Acc;
  __shared__ Acc per_warp[kBlockThreads / 32];
  for (int delta = warpSize / 2; delta > 0; delta /= 2) v = r.combine(v, shuffle_down(v, delta));
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  if (lane == 0) per_warp[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + warpSize - 1) / warpSize;
    v = lane < warps ? per_warp[lane] : r.identity();
    for (int delta = warpSize / 2; delta > 0; delta /= 2) v = r.combine(v, shuffle_down(v, delta));
  }
  return v;
}

// The reduced element j of the output whose first element is `first`.
template <class T>
__device__ T reduced_element(const char* first, const Loop<1>& inner, int64_t j) {
  if (inner.ndim == 1) return *reinterpret_cast<const T*>(first + j * inner.strides[0][0]);
  char* q[1];
  inner.locate(j, q);
  return *reinterpret_cast<const T*>(first + (q[0] - inner.base[0]));
}

// One thread per output: outputs many, or reduced elements far apart.
template <class T, class Out, Finish kFinish, class R>
__global__ void reduce_per_thread(Loop<2> outer, Loop<1> inner, R r) {
  for (int64_t o = global_thread(); o < outer.numel; o += grid_threads()) {
    char* p[2];
    outer.locate(o, p);
    typename R::Acc acc = r.identity();
    for (int64_t j = 0; j < inner.numel; ++j) acc = r.combine(acc, r.lift(reduced_element<T>(p[1], inner, j), j));
    *reinterpret_cast<Out*>(p[0]) = finish<Out, kFinish>(acc, inner.numel);
  }
}

// Blocks of `splits` per output, each over `chunk` reduced elements, four
// loads in flight per thread. With one split the block stores the result;
// otherwise it stores a partial for reduce_partials.
template <class T, class Out, Finish kFinish, class R>
__global__ void reduce_per_block(Loop<2> outer, Loop<1> inner, R r, int64_t splits, int64_t chunk,
                                 typename R::Acc* partials) {
  const int64_t blocks = outer.numel * splits;
  for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const int64_t o = b / splits;
    const int64_t begin = (b % splits) * chunk;
    const int64_t end = min(begin + chunk, inner.numel);
    char* p[2];
    outer.locate(o, p);
    typename R::Acc acc = r.identity();
    const int64_t step = blockDim.x;
    int64_t j = begin + threadIdx.x;
    for (; j + 3 * step < end; j += 4 * step) {
      const T x0 = reduced_element<T>(p[1], inner, j);
      const T x1 = reduced_element<T>(p[1], inner, j + step);
      const T x2 = reduced_element<T>(p[1], inner, j + 2 * step);
      const T x3 = reduced_element<T>(p[1], inner, j + 3 * step);
      acc = r.combine(acc, r.combine(r.combine(r.lift(x0, j), r.lift(x1, j + step)),
                                     r.combine(r.lift(x2, j + 2 * step), r.lift(x3, j + 3 * step))));
    }
    for (; j < end; j += step) acc = r.combine(acc, r.lift(reduced_element<T>(p[1], inner, j), j));
    acc = block_reduce(acc, r);
    if (threadIdx.x == 0) {
      if (splits == 1) {
        *reinterpret_cast<Out*>(p[0]) = finish<Out, kFinish>(acc, inner.numel);
      } else {
        partials[b] = acc;
      }
    }
    __syncthreads();  // per_warp is reused by the next output
  }
}

template <class Out, Finish kFinish, class R>
__global__ void reduce_partials(Loop<2> outer, int64_t n, R r, int64_t splits, const typename R::Acc* partials) {
  for (int64_t o = global_thread(); o < outer.numel; o += grid_threads()) {
    char* p[2];
    outer.locate(o, p);
    typename R::Acc acc = r.identity();
    for (int64_t s = 0; s < splits; ++s) acc = r.combine(acc, partials[o * splits + s]);
    *reinterpret_cast<Out*>(p[0]) = finish<Out, kFinish>(acc, n);
  }
}

template <class T, class Out, Finish kFinish, class R>
void launch_reduce(const ember_kernel_call& call, R r) {
  const CallContext context(call);
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  if (out.ndim != x.ndim) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(call.op_name) + ": out must have x's rank (keepdim shape)");
  }
  const std::vector<bool> reduced = sdk::reduced_dims(call, x.ndim);
  std::vector<int64_t> outer_shape = shape_of(x), inner_shape = shape_of(x);
  for (size_t d = 0; d < reduced.size(); ++d) (reduced[d] ? outer_shape : inner_shape)[d] = 1;
  const std::vector<int64_t> x_strides = strides_of(x), out_strides = strides_of(out);
  const DLTensor out_view = reshaped(out, outer_shape, out_strides);
  const DLTensor x_outer = reshaped(x, outer_shape, x_strides);
  const DLTensor x_inner = reshaped(x, inner_shape, x_strides);
  const Loop<2> outer = make_loop<2>({&out_view, &x_outer});
  const Loop<1> inner = make_loop<1>({&x_inner});
  if (outer.numel == 0) return;
  const int64_t n = inner.numel;
  const bool inner_dense = inner.dense(0, sizeof(T));
  // A block per output when its elements lie side by side (loads coalesce
  // across the block's threads) or when there are too few outputs to fill
  // the GPU a thread each; otherwise adjacent threads take adjacent outputs.
  const int64_t few_outputs = int64_t{context.multiprocessors()} * 64;
  const bool per_block = n >= 1024 && (inner_dense || outer.numel < few_outputs);
  if (!per_block) {
    reduce_per_thread<T, Out, kFinish><<<context.blocks_for(outer.numel), kBlockThreads, 0, context.stream()>>>(
        outer, inner, r);
    check_launch(call.op_name);
    return;
  }
  // Enough blocks to keep every multiprocessor busy, none with fewer than
  // about 4096 elements.
  const int64_t wanted_blocks = int64_t{context.multiprocessors()} * 8;
  const int64_t splits =
      std::clamp<int64_t>((wanted_blocks + outer.numel - 1) / outer.numel, 1, std::max<int64_t>(1, n / 4096));
  const int64_t chunk = (n + splits - 1) / splits;
  using Acc = typename R::Acc;
  Acc* partials = splits > 1 ? static_cast<Acc*>(context.scratch(sizeof(Acc) * outer.numel * splits)) : nullptr;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(outer.numel * splits, int64_t{1} << 20));
  reduce_per_block<T, Out, kFinish><<<grid, kBlockThreads, 0, context.stream()>>>(outer, inner, r, splits, chunk,
                                                                                  partials);
  check_launch(call.op_name);
  if (splits > 1) {
    reduce_partials<Out, kFinish><<<context.blocks_for(outer.numel), kBlockThreads, 0, context.stream()>>>(
        outer, n, r, splits, partials);
    check_launch(call.op_name);
  }
}

template <class T>
using sum_out_t = std::conditional_t<is_floating_v<T>, T, int64_t>;

template <class>
struct SumKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    launch_reduce<T, sum_out_t<T>, Finish::kValue>(call, SumReducer<T>{});
  }
};
template <class>
struct ProdKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    launch_reduce<T, sum_out_t<T>, Finish::kValue>(call, ProdReducer<T>{});
  }
};
template <class>
struct MeanKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    launch_reduce<T, T, Finish::kMean>(call, SumReducer<T>{});
  }
};
template <class Max>
struct ExtremeKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    launch_reduce<T, T, Finish::kValue>(call, ExtremeReducer<T, Max::value>{});
  }
};
template <class Max>
struct ArgKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    launch_reduce<T, int64_t, Finish::kIndex>(call, ArgReducer<T, Max::value>{});
  }
};

using IsMax = std::true_type;
using IsMin = std::false_type;

}  // namespace

void register_reduce_kernels(const sdk::Registrar& r) {
  add_kernels<SumKernel, void>(r, "sum", sdk::AllTypes{});
  add_kernels<ProdKernel, void>(r, "prod", sdk::AllTypes{});
  add_kernels<MeanKernel, void>(r, "mean", sdk::FloatingTypes{});
  add_kernels<ExtremeKernel, IsMax>(r, "amax", sdk::AllTypes{});
  add_kernels<ExtremeKernel, IsMin>(r, "amin", sdk::AllTypes{});
  add_kernels<ArgKernel, IsMax>(r, "argmax", sdk::NumericTypes{});
  add_kernels<ArgKernel, IsMin>(r, "argmin", sdk::NumericTypes{});
}

}  // namespace ember::gpu
