// Reductions: sum, prod, mean, amax, amin, argmax, argmin.
#include "kernels.h"

namespace ember::xpu {

namespace {

// Op codes of cl/reduce.cl.
enum ReduceOp : cl_int { kSum = 0, kProd = 1, kMean = 2, kMax = 3, kMin = 4 };

struct ReduceKernel {
  const char* kernel;
  ReduceOp op;
};

// out has x's rank (keepdim shape). `outer` walks out and the matching first
// elements of x, `inner` the reduced elements relative to them.
void reduce_kernel(const ember_kernel_call& call, void* data) {
  const auto& k = *static_cast<const ReduceKernel*>(data);
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  if (sdk::numel(out) == 0) return;
  const std::vector<bool> reduced = sdk::reduced_dims(call, x.ndim);
  std::vector<int64_t> outer_shape = shape_of(x);
  std::vector<int64_t> inner_shape = shape_of(x);
  for (size_t d = 0; d < reduced.size(); ++d) (reduced[d] ? outer_shape : inner_shape)[d] = 1;
  if (out.ndim != x.ndim) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(call.op_name) + ": out must have x's rank (keepdim shape)");
  }
  const Geometry outer = make_geometry(outer_shape, {operand_of(out), operand_of(x)});
  const Geometry inner = make_geometry(inner_shape, {Operand{operand_of(x).strides, 0}});
  Launch(call, sdk::dtype_of(x), k.kernel)
      .buffer(buffer_of(out))
      .buffer(buffer_of(x))
      .value(cl_int{k.op})
      .value(outer)
      .value(inner)
      .run(outer.numel);
}

constexpr ReduceKernel kSumKernel{"reduce_sum", kSum};
constexpr ReduceKernel kProdKernel{"reduce_sum", kProd};
constexpr ReduceKernel kMeanKernel{"reduce_sum", kMean};
constexpr ReduceKernel kMaxKernel{"reduce_extreme", kMax};
constexpr ReduceKernel kMinKernel{"reduce_extreme", kMin};
constexpr ReduceKernel kArgMaxKernel{"reduce_arg", kMax};
constexpr ReduceKernel kArgMinKernel{"reduce_arg", kMin};

void add(const sdk::Registrar& r, const char* op, ember_dtype dtype, const ReduceKernel& k) {
  r.add(op, dtype, sdk::kernel_entry<&reduce_kernel>, const_cast<ReduceKernel*>(&k));
}

}  // namespace

void register_reduce_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes) {
  for (ember_dtype dtype : dtypes) {
    add(r, "sum", dtype, kSumKernel);
    add(r, "prod", dtype, kProdKernel);
    add(r, "amax", dtype, kMaxKernel);
    add(r, "amin", dtype, kMinKernel);
    if (dtype_info(dtype).is_floating) add(r, "mean", dtype, kMeanKernel);
    if (dtype != EMBER_DTYPE_BOOL) {
      add(r, "argmax", dtype, kArgMaxKernel);
      add(r, "argmin", dtype, kArgMinKernel);
    }
  }
}

}  // namespace ember::xpu
