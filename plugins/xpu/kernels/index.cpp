// Index ops: index_select, gather, scatter_add and cat.
#include "kernels.h"

namespace ember::xpu {

namespace {

// out[p] = x[p with p[dim] = index value]; the index operand's strides say
// where the value of position p lies.
void enqueue_take(const ember_kernel_call& call, const DimView& x, int64_t dim, const Operand& index_operand) {
  const DLTensor& out = call.outputs[0];
  const DimView out_view = dim_view(out);
  if (sdk::numel(out) == 0) return;
  Operand x_operand = x.operand;
  const int64_t x_dim_stride = x_operand.strides[static_cast<size_t>(dim)];
  x_operand.strides[static_cast<size_t>(dim)] = 0;
  const Geometry g = make_geometry(out_view.shape, {out_view.operand, x_operand, index_operand});
  const DLTensor& index = call.inputs[1];
  const ErrorWord error(call);
  Launch launch(call, sdk::dtype_of(out), "take");
  launch.buffer(buffer_of(out))
      .buffer(buffer_of(call.inputs[0]))
      .buffer(buffer_of(index))
      .value(cl_int{sdk::index_is_int64(index)})
      .value(cl_long{x.shape[static_cast<size_t>(dim)]})
      .value(cl_long{x_dim_stride})
      .buffer(error.buffer())
      .value(g)
      .run(g.numel);
  error.raise_if_set(launch.queue(), call.op_name);
}

void index_select_kernel(const ember_kernel_call& call) {
  const int64_t dim = sdk::attr_int(call, "dim");
  const DimView x = dim_view(call.inputs[0]);
  const DLTensor& index = call.inputs[1];
  // The index walks along dim only.
  Operand index_operand{std::vector<int64_t>(x.shape.size(), 0), element_offset(index)};
  index_operand.strides[static_cast<size_t>(dim)] = index.ndim == 0 ? 0 : index.strides[0];
  enqueue_take(call, x, dim, index_operand);
}

void gather_kernel(const ember_kernel_call& call) {
  enqueue_take(call, dim_view(call.inputs[0]), sdk::attr_int(call, "dim"), dim_view(call.inputs[1]).operand);
}

void scatter_add_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  const DLTensor& x = call.inputs[0];
  const DLTensor& index = call.inputs[1];
  const DLTensor& src = call.inputs[2];
  const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
  if (x.data != out.data || x.byte_offset != out.byte_offset) {
    enqueue_copy(call, x, buffer_of(out), sdk::dtype_of(out), operand_of(out));
  }
  if (sdk::numel(index) == 0) return;
  const DimView out_view = dim_view(out);
  const DimView src_view = dim_view(src);
  const DimView index_view = dim_view(index);
  std::vector<int64_t> lines = index_view.shape;
  lines[dim] = 1;
  Operand out_operand = out_view.operand;
  out_operand.strides[dim] = 0;
  const Geometry g = make_geometry(lines, {out_operand, src_view.operand, index_view.operand});
  const ErrorWord error(call);
  Launch launch(call, sdk::dtype_of(out), "scatter_add");
  launch.buffer(buffer_of(out))
      .buffer(buffer_of(src))
      .buffer(buffer_of(index))
      .value(cl_int{sdk::index_is_int64(index)})
      .value(cl_long{index_view.shape[dim]})
      .value(cl_long{out_view.shape[dim]})
      .value(cl_long{out_view.operand.strides[dim]})
      .value(cl_long{src_view.operand.strides[dim]})
      .value(cl_long{index_view.operand.strides[dim]})
      .buffer(error.buffer())
      .value(g)
      .run(g.numel);
  error.raise_if_set(launch.queue(), call.op_name);
}

// Each non-empty input is copied into its slab of out along dim.
void cat_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
  int64_t along = 0;
  for (int64_t i = 0; i < call.num_inputs; ++i) {
    const DLTensor& x = call.inputs[i];
    if (sdk::numel(x) == 0) continue;
    Operand slab = operand_of(out);
    slab.first += along * slab.strides[dim];
    enqueue_copy(call, x, buffer_of(out), sdk::dtype_of(out), slab);
    along += x.shape[dim];
  }
}

}  // namespace

DimView dim_view(const DLTensor& t) {
  if (t.ndim == 0) return DimView{{1}, Operand{{0}, element_offset(t)}};
  return DimView{shape_of(t), operand_of(t)};
}

void register_index_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes) {
  for (ember_dtype dtype : dtypes) {
    r.add("index_select", dtype, sdk::kernel_entry<&index_select_kernel>);
    r.add("gather", dtype, sdk::kernel_entry<&gather_kernel>);
    r.add("scatter_add", dtype, sdk::kernel_entry<&scatter_add_kernel>);
    r.add("cat", dtype, sdk::kernel_entry<&cat_kernel>);
  }
}

}  // namespace ember::xpu
