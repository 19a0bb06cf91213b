// Factories: fill, arange, and the random numbers uniform and normal.
#include <type_traits>

#include "kernels.h"

namespace ember::xpu {

namespace {

// fill's value arrives as FLOAT, INT or BOOL; each dtype takes it as its
// compute type (its own type, float for float16 and bfloat16, which the
// kernel rounds like the CPU plugin does), so int64 values stay exact.
void fill_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  const Geometry g = make_geometry(shape_of(out), {operand_of(out)});
  if (g.numel == 0) return;
  const ember_dtype dtype = sdk::dtype_of(out);
  const ember_attr* value = sdk::find_attr(call, "value");
  if (value == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "fill: attribute 'value' is missing");
  Launch launch(call, dtype, "fill");
  launch.buffer(buffer_of(out));
  sdk::visit_dtype(dtype, [&](auto tag) {
    using Element = typename decltype(tag)::type;
    using T = std::conditional_t<sdk::is_reduced_float_v<Element>, float, Element>;
    if (value->kind == EMBER_ATTR_FLOAT) {
      launch.value(static_cast<T>(value->float_value));
    } else {
      launch.value(static_cast<T>(value->int_value));
    }
  });
  launch.value(g).run(g.numel);
}

void arange_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  const Geometry g = make_geometry(shape_of(out), {operand_of(out)});
  if (g.numel == 0) return;
  const ember_dtype dtype = sdk::dtype_of(out);
  // start and step are FLOAT for floating outputs, INT otherwise.
  const bool floating = dtype_info(dtype).is_floating;
  Launch launch(call, dtype, "arange");
  launch.buffer(buffer_of(out));
  for (const char* name : {"start", "step"}) {
    if (floating) {
      launch.accumulator(sdk::attr_float(call, name), 0);
    } else {
      launch.accumulator(0, sdk::attr_int(call, name));
    }
  }
  launch.value(g).run(g.numel);
}

// uniform (low, high) and normal (mean, std) take the same arguments.
struct RandomOp {
  const char* kernel;
  const char* first_param;
  const char* second_param;
};

constexpr RandomOp kUniform{"uniform", "low", "high"};
constexpr RandomOp kNormal{"normal", "mean", "std"};

void random_kernel(const ember_kernel_call& call, void* data) {
  const auto& op = *static_cast<const RandomOp*>(data);
  const DLTensor& out = call.outputs[0];
  const Geometry g = make_geometry(shape_of(out), {operand_of(out)});
  if (g.numel == 0) return;
  Launch launch(call, sdk::dtype_of(out), op.kernel);
  launch.buffer(buffer_of(out))
      .accumulator(sdk::attr_float(call, op.first_param), 0)
      .accumulator(sdk::attr_float(call, op.second_param), 0)
      .value(static_cast<cl_ulong>(sdk::attr_int(call, "seed")))
      .value(static_cast<cl_ulong>(sdk::attr_int(call, "offset")))
      .value(g)
      .run(g.numel);
}

}  // namespace

void register_factory_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes) {
  for (ember_dtype dtype : dtypes) {
    r.add("fill", dtype, sdk::kernel_entry<&fill_kernel>);
    if (dtype != EMBER_DTYPE_BOOL) r.add("arange", dtype, sdk::kernel_entry<&arange_kernel>);
    if (dtype_info(dtype).is_floating) {
      r.add("uniform", dtype, sdk::kernel_entry<&random_kernel>, const_cast<RandomOp*>(&kUniform));
      r.add("normal", dtype, sdk::kernel_entry<&random_kernel>, const_cast<RandomOp*>(&kNormal));
    }
  }
}

}  // namespace ember::xpu
