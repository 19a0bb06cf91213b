// Ops along the lines of one dim: cumsum and sort (ops.md "Scans and
// sorting"). `dim` is normalised and x has at least one dimension.
#include "elementwise_ops.cuh"
#include "kernels.h"
#include "launch.cuh"
#include "loop.cuh"
#include "ordering.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

// Loops over the first element of every line along `dim`: the operands'
// own strides on a shape whose dim is 1.
struct Lines {
  std::vector<int64_t> shape;
  int64_t length;
};

Lines lines_of(const DLTensor& x, size_t dim) {
  Lines lines{shape_of(x), x.shape[dim]};
  lines.shape[dim] = 1;
  return lines;
}

// Floating values accumulate in float64, integral ones (bool included) in
// int64, which is also their output dtype.
template <class T>
using scan_acc_t = std::conditional_t<is_floating_v<T>, double, int64_t>;
template <class T>
using scan_out_t = std::conditional_t<is_floating_v<T>, T, int64_t>;

template <class T>
__global__ void cumsum_kernel(Loop<2> lines, int64_t length, int64_t out_stride, int64_t x_stride) {
  for (int64_t i = global_thread(); i < lines.numel; i += grid_threads()) {
    char* p[2];
    lines.locate(i, p);
    scan_acc_t<T> acc = 0;
    for (int64_t j = 0; j < length; ++j) {
      acc = ops::Add{}(acc, static_cast<scan_acc_t<T>>(to_compute(*reinterpret_cast<const T*>(p[1] + j * x_stride))));
      *reinterpret_cast<scan_out_t<T>*>(p[0] + j * out_stride) = convert<scan_out_t<T>>(acc);
    }
  }
}

template <class>
struct CumsumKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    const DLTensor& x = call.inputs[0];
    const DLTensor& out = call.outputs[0];
    if (sdk::numel(x) == 0) return;
    const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
    const Lines lines = lines_of(x, dim);
    const std::vector<int64_t> out_strides = strides_of(out), x_strides = strides_of(x);
    const DLTensor out_walk = reshaped(out, lines.shape, out_strides);
    const DLTensor x_walk = reshaped(x, lines.shape, x_strides);
    const Loop<2> loop = make_loop<2>({&out_walk, &x_walk});
    cumsum_kernel<T><<<context.blocks_for(loop.numel), kBlockThreads, 0, context.stream()>>>(
        loop, lines.length, out_strides[dim] * int64_t{sizeof(scan_out_t<T>)}, x_strides[dim] * int64_t{sizeof(T)});
    check_launch(call.op_name);
  }
};

// Note [GPU sort]: every line is sorted by a bottom-up merge sort over
// (value, position) pairs in scratch memory, one launch per pass; pass w
// merges neighbouring runs of w, a thread per merge. Taking the left run's
// element on ties keeps equal values in their order, so the sort is always
// stable. NaN sorts above every number: last ascending, first descending
// (goes_before, ordering.cuh).

template <class T>
__global__ void sort_load(Loop<1> lines, int64_t length, int64_t x_stride, T* keys, int64_t* positions) {
  const int64_t total = lines.numel * length;
  for (int64_t e = global_thread(); e < total; e += grid_threads()) {
    const int64_t line = e / length, j = e - line * length;
    char* p[1];
    lines.locate(line, p);
    keys[e] = *reinterpret_cast<const T*>(p[0] + j * x_stride);
    positions[e] = j;
  }
}

template <class T>
__global__ void sort_merge_pass(int64_t num_lines, int64_t length, int64_t width, bool descending, const T* keys,
                                const int64_t* positions, T* merged_keys, int64_t* merged_positions) {
  const int64_t merges_per_line = (length + 2 * width - 1) / (2 * width);
  const int64_t total = num_lines * merges_per_line;
  for (int64_t m = global_thread(); m < total; m += grid_threads()) {
    const int64_t line = m / merges_per_line;
    const int64_t first = line * length;
    const int64_t begin = (m - line * merges_per_line) * 2 * width;
    const int64_t middle = min(begin + width, length), end = min(begin + 2 * width, length);
    int64_t a = begin, b = middle;
    for (int64_t out = begin; out < end; ++out) {
      const bool take_right =
          a >= middle || (b < end && goes_before(to_compute(keys[first + b]), to_compute(keys[first + a]), descending));
      const int64_t from = first + (take_right ? b++ : a++);
      merged_keys[first + out] = keys[from];
      merged_positions[first + out] = positions[from];
    }
  }
}

template <class T>
__global__ void sort_store(Loop<2> lines, int64_t length, int64_t values_stride, int64_t indices_stride,
                           const T* keys, const int64_t* positions) {
  const int64_t total = lines.numel * length;
  for (int64_t e = global_thread(); e < total; e += grid_threads()) {
    const int64_t line = e / length, j = e - line * length;
    char* p[2];
    lines.locate(line, p);
    *reinterpret_cast<T*>(p[0] + j * values_stride) = keys[e];
    *reinterpret_cast<int64_t*>(p[1] + j * indices_stride) = positions[e];
  }
}

template <class>
struct SortKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    const DLTensor& x = call.inputs[0];
    const DLTensor& values = call.outputs[0];
    const DLTensor& indices = call.outputs[1];
    const int64_t total = sdk::numel(x);
    if (total == 0) return;
    const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
    const bool descending = sdk::attr_bool(call, "descending");
    const Lines lines = lines_of(x, dim);
    const std::vector<int64_t> x_strides = strides_of(x), values_strides = strides_of(values),
                               indices_strides = strides_of(indices);
    const DLTensor x_walk = reshaped(x, lines.shape, x_strides);
    const DLTensor values_walk = reshaped(values, lines.shape, values_strides);
    const DLTensor indices_walk = reshaped(indices, lines.shape, indices_strides);
    const Loop<1> x_lines = make_loop<1>({&x_walk});
    const Loop<2> out_lines = make_loop<2>({&values_walk, &indices_walk});

    char* scratch = static_cast<char*>(context.scratch(2 * static_cast<size_t>(total) * (sizeof(T) + sizeof(int64_t))));
    // Positions first: the scratch block is aligned for them, and keys of
    // any size need no more than what follows them.
    int64_t* positions[2] = {reinterpret_cast<int64_t*>(scratch), reinterpret_cast<int64_t*>(scratch) + total};
    T* keys[2] = {reinterpret_cast<T*>(positions[1] + total), reinterpret_cast<T*>(positions[1] + total) + total};
    const unsigned grid = context.blocks_for(total);
    sort_load<T><<<grid, kBlockThreads, 0, context.stream()>>>(x_lines, lines.length,
                                                              x_strides[dim] * int64_t{sizeof(T)}, keys[0],
                                                              positions[0]);
    check_launch(call.op_name);
    int current = 0;
    for (int64_t width = 1; width < lines.length; width *= 2) {
      const int64_t merges = x_lines.numel * ((lines.length + 2 * width - 1) / (2 * width));
      sort_merge_pass<T><<<context.blocks_for(merges), kBlockThreads, 0, context.stream()>>>(
          x_lines.numel, lines.length, width, descending, keys[current], positions[current], keys[1 - current],
          positions[1 - current]);
      check_launch(call.op_name);
      current = 1 - current;
    }
    sort_store<T><<<grid, kBlockThreads, 0, context.stream()>>>(
        out_lines, lines.length, values_strides[dim] * int64_t{sizeof(T)},
        indices_strides[dim] * int64_t{sizeof(int64_t)}, keys[current], positions[current]);
    check_launch(call.op_name);
  }
};

}  // namespace

void register_sort_kernels(const sdk::Registrar& r) {
  add_kernels<CumsumKernel, void>(r, "cumsum", sdk::AllTypes{});
  add_kernels<SortKernel, void>(r, "sort", sdk::AllTypes{});
}

}  // namespace ember::gpu
