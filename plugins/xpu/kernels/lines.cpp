// Ops along the lines of one dim: cumsum and sort. A work item owns a line.
#include "kernels.h"

namespace ember::xpu {

namespace {

// The loop over every line: x's shape with dim collapsed.
std::vector<int64_t> line_starts(const DimView& x, size_t dim) {
  std::vector<int64_t> shape = x.shape;
  shape[dim] = 1;
  return shape;
}

void cumsum_kernel(const ember_kernel_call& call) {
  const DimView x = dim_view(call.inputs[0]);
  const DimView out = dim_view(call.outputs[0]);
  const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
  if (sdk::numel(call.inputs[0]) == 0) return;
  const Geometry g = make_geometry(line_starts(x, dim), {out.operand, x.operand});
  Launch(call, sdk::dtype_of(call.inputs[0]), "cumsum")
      .buffer(buffer_of(call.outputs[0]))
      .buffer(buffer_of(call.inputs[0]))
      .value(cl_long{x.shape[dim]})
      .value(cl_long{out.operand.strides[dim]})
      .value(cl_long{x.operand.strides[dim]})
      .value(g)
      .run(g.numel);
}

void sort_kernel(const ember_kernel_call& call) {
  const DimView x = dim_view(call.inputs[0]);
  const DimView values = dim_view(call.outputs[0]);
  const DimView indices = dim_view(call.outputs[1]);
  const size_t dim = static_cast<size_t>(sdk::attr_int(call, "dim"));
  if (sdk::numel(call.inputs[0]) == 0) return;
  const Geometry g = make_geometry(line_starts(x, dim), {values.operand, indices.operand, x.operand});
  // Insertion sort is always stable, so `stable` needs nothing more.
  Launch(call, sdk::dtype_of(call.inputs[0]), "sort_lines")
      .buffer(buffer_of(call.outputs[0]))
      .buffer(buffer_of(call.outputs[1]))
      .buffer(buffer_of(call.inputs[0]))
      .value(cl_long{x.shape[dim]})
      .value(cl_long{values.operand.strides[dim]})
      .value(cl_long{indices.operand.strides[dim]})
      .value(cl_long{x.operand.strides[dim]})
      .value(cl_int{sdk::attr_bool(call, "descending")})
      .value(g)
      .run(g.numel);
}

}  // namespace

void register_line_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes) {
  for (ember_dtype dtype : dtypes) {
    r.add("cumsum", dtype, sdk::kernel_entry<&cumsum_kernel>);
    r.add("sort", dtype, sdk::kernel_entry<&sort_kernel>);
  }
}

}  // namespace ember::xpu
