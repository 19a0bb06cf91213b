// Index ops: index_select, gather, scatter_add and cat (ops.md
// "Indexing"). Index values outside [0, size) fail the call with
// OUT_OF_RANGE once the stream has run.
#include "elementwise_ops.cuh"
#include "kernels.h"
#include "map.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

// A tensor as ops along a dim see it: a 0-d tensor is a [1].
struct DimView {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLTensor tensor;
};

DimView dim_view(const DLTensor& t) {
  DimView v;
  v.shape = t.ndim == 0 ? std::vector<int64_t>{1} : shape_of(t);
  v.strides = t.ndim == 0 ? std::vector<int64_t>{0} : strides_of(t);
  v.tensor = reshaped(t, v.shape, v.strides);
  return v;
}

__device__ inline int64_t read_index(const char* at, bool is_long) {
  return is_long ? *reinterpret_cast<const int64_t*>(at) : *reinterpret_cast<const int32_t*>(at);
}

// out[p] = x[p with p[dim] = index value]: the loop walks out with x's dim
// stride zeroed, and the index operand's strides say where p's value lies.
template <class T>
__global__ void take_kernel(Loop<3> loop, bool is_long, int64_t dim_size, int64_t x_dim_stride, int32_t* error) {
  for (int64_t i = global_thread(); i < loop.numel; i += grid_threads()) {
    char* p[3];
    loop.locate(i, p);
    const int64_t k = read_index(p[2], is_long);
    if (k < 0 || k >= dim_size) {
      *error = kIndexOutOfRange;
      continue;
    }
    *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[1] + k * x_dim_stride);
  }
}

template <class T>
void launch_take(const ember_kernel_call& call, const DLTensor& index_operand) {
  const CallContext context(call);
  const int64_t dim = sdk::attr_int(call, "dim");
  const DimView x = dim_view(call.inputs[0]);
  const DimView out = dim_view(call.outputs[0]);
  std::vector<int64_t> x_strides = x.strides;
  const int64_t x_dim_stride = x_strides[static_cast<size_t>(dim)] * int64_t{sizeof(T)};
  x_strides[static_cast<size_t>(dim)] = 0;
  const DLTensor x_walk = reshaped(call.inputs[0], out.shape, x_strides);
  const Loop<3> loop = make_loop<3>({&out.tensor, &x_walk, &index_operand});
  if (loop.numel == 0) return;
  const ErrorFlag error(context);
  take_kernel<T><<<context.blocks_for(loop.numel), kBlockThreads, 0, context.stream()>>>(
      loop, sdk::index_is_int64(call.inputs[1]), x.shape[static_cast<size_t>(dim)], x_dim_stride, error.device_word());
  check_launch(call.op_name);
  error.raise_if_set();
}

template <class>
struct IndexSelectKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const int64_t dim = sdk::attr_int(call, "dim");
    const DLTensor& index = call.inputs[1];
    const DimView out = dim_view(call.outputs[0]);
    // The index walks along dim only.
    std::vector<int64_t> strides(out.shape.size(), 0);
    strides[static_cast<size_t>(dim)] = index.ndim == 0 ? 0 : index.strides[0];
    launch_take<T>(call, reshaped(index, out.shape, strides));
  }
};

template <class>
struct GatherKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const DimView index = dim_view(call.inputs[1]);
    launch_take<T>(call, index.tensor);
  }
};

// A thread owns a line of out: elements of index that differ only along dim
// add into one line, in order, so no two threads touch one element. The
// loop walks index's shape with dim collapsed: out (dim stride zeroed),
// src and index.
template <class T>
__global__ void scatter_add_kernel(Loop<3> loop, bool is_long, int64_t length, int64_t out_dim_size,
                                   int64_t out_dim_stride, int64_t src_dim_stride, int64_t index_dim_stride,
                                   int32_t* error) {
  for (int64_t i = global_thread(); i < loop.numel; i += grid_threads()) {
    char* p[3];
    loop.locate(i, p);
    for (int64_t j = 0; j < length; ++j) {
      const int64_t k = read_index(p[2] + j * index_dim_stride, is_long);
      if (k < 0 || k >= out_dim_size) {
        *error = kIndexOutOfRange;
        break;
      }
      T* target = reinterpret_cast<T*>(p[0] + k * out_dim_stride);
      const T addend = *reinterpret_cast<const T*>(p[1] + j * src_dim_stride);
      *target = convert<T>(ops::Add{}(to_compute(*target), to_compute(addend)));
    }
  }
}

template <class>
struct ScatterAddKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    const DLTensor& x = call.inputs[0];
    const DLTensor& out_tensor = call.outputs[0];
    if (x.data != out_tensor.data || x.byte_offset != out_tensor.byte_offset) {
      launch_map<T, T>(context, out_tensor, {&x}, ops::Identity{});
    }
    if (sdk::numel(call.inputs[1]) == 0) return;
    const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
    const DimView out = dim_view(out_tensor);
    const DimView src = dim_view(call.inputs[2]);
    const DimView index = dim_view(call.inputs[1]);
    std::vector<int64_t> lines = index.shape;
    lines[dim] = 1;
    std::vector<int64_t> out_strides = out.strides;
    out_strides[dim] = 0;
    const DLTensor out_walk = reshaped(out_tensor, lines, out_strides);
    const DLTensor src_walk = reshaped(call.inputs[2], lines, src.strides);
    const DLTensor index_walk = reshaped(call.inputs[1], lines, index.strides);
    const Loop<3> loop = make_loop<3>({&out_walk, &src_walk, &index_walk});
    const int64_t index_bytes = sdk::index_is_int64(call.inputs[1]) ? 8 : 4;
    const ErrorFlag error(context);
    scatter_add_kernel<T><<<context.blocks_for(loop.numel), kBlockThreads, 0, context.stream()>>>(
        loop, index_bytes == 8, index.shape[dim], out.shape[dim], out.strides[dim] * int64_t{sizeof(T)},
        src.strides[dim] * int64_t{sizeof(T)}, index.strides[dim] * index_bytes, error.device_word());
    check_launch(call.op_name);
    error.raise_if_set();
  }
};

// Each non-empty input is copied into its slab of out along dim (the core
// has converted every input to out's dtype).
template <class>
struct CatKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    const DLTensor& out = call.outputs[0];
    const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
    const std::vector<int64_t> out_strides = strides_of(out);
    int64_t along = 0;
    for (int64_t i = 0; i < call.num_inputs; ++i) {
      const DLTensor& x = call.inputs[i];
      if (sdk::numel(x) == 0) continue;
      const std::vector<int64_t> x_shape = shape_of(x);
      DLTensor slab = reshaped(out, x_shape, out_strides);
      slab.byte_offset += static_cast<uint64_t>(along * out_strides[dim] * int64_t{sizeof(T)});
      launch_map<T, T>(context, slab, {&x}, ops::Identity{});
      along += x.shape[dim];
    }
  }
};

}  // namespace

void register_index_kernels(const sdk::Registrar& r) {
  add_kernels<IndexSelectKernel, void>(r, "index_select", sdk::AllTypes{});
  add_kernels<GatherKernel, void>(r, "gather", sdk::AllTypes{});
  add_kernels<ScatterAddKernel, void>(r, "scatter_add", sdk::AllTypes{});
  add_kernels<CatKernel, void>(r, "cat", sdk::AllTypes{});
}

}  // namespace ember::gpu
