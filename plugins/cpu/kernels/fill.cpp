// Factories without randomness: fill and arange (ops.md "Factories").
#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

// A filled element costs about 0.05 ns (Note [Grain sizes]).
constexpr int64_t kFillGrain = grain_for(0.05);

// The fill value converted to T; ops.md gives FLOAT for floating outputs,
// INT for integral ones and BOOL for bool, but any kind is accepted.
template <class T>
T fill_value(const ember_kernel_call& call) {
  const ember_attr* attr = sdk::find_attr(call, "value");
  if (attr != nullptr && attr->kind == EMBER_ATTR_FLOAT) return sdk::convert<T>(attr->float_value);
  return sdk::convert<T>(sdk::attr_int(call, "value"));
}

template <class T>
void fill_kernel(const ember_kernel_call& call) {
  const T value = fill_value<T>(call);
  const sdk::StridedLoop loop({&call.outputs[0]}, sdk::LoopOrder::Memory);
  parallel_for(0, loop.numel(), kFillGrain, [&](int64_t begin, int64_t end) {
    sdk::transform<T>(loop, begin, end, [value] { return value; });
  });
}

// out[i] = start + i * step, in double for floating outputs and in wrapping
// int64 arithmetic otherwise.
template <class T>
void arange_kernel(const ember_kernel_call& call) {
  const DLTensor& out = call.outputs[0];
  const int64_t n = sdk::numel(out);
  T* data = reinterpret_cast<T*>(sdk::data_ptr(out));
  const int64_t stride = out.ndim == 0 ? 0 : out.strides[0];
  if constexpr (sdk::is_floating_v<T>) {
    const double start = sdk::attr_float(call, "start");
    const double step = sdk::attr_float(call, "step");
    parallel_for(0, n, kElementwiseGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        data[i * stride] = sdk::convert<T>(start + static_cast<double>(i) * step);
      }
    });
  } else {
    const int64_t start = sdk::attr_int(call, "start");
    const int64_t step = sdk::attr_int(call, "step");
    parallel_for(0, n, kElementwiseGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        data[i * stride] = static_cast<T>(sdk::wrap_add(start, sdk::wrap_mul(i, step)));
      }
    });
  }
}

}  // namespace

void register_fill_kernels(const sdk::Registrar& r) {
  r.add_each("fill", sdk::AllTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&fill_kernel<typename decltype(tag)::type>>;
  });
  r.add_each("arange", sdk::NumericTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&arange_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
