// cumsum (ops.md "Scans and sorting"): a sequential sum along each line.
#include <type_traits>

#include "kernels.h"
#include "lines.h"

namespace ember::cpu {
namespace {

// About 0.6 ns an element (Note [Grain sizes]).
constexpr int64_t kScanGrain = grain_for(0.6);

template <class T>
void cumsum_kernel(const ember_kernel_call& call) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  // Integral inputs (bool included) give int64; floating ones accumulate in
  // double, as PyTorch's CPU kernel does, so long float32 scans stay accurate.
  using Out = std::conditional_t<sdk::is_floating_v<T>, T, int64_t>;
  using Acc = std::conditional_t<sdk::is_floating_v<T>, double, int64_t>;
  const int64_t dim = sdk::attr_int(call, "dim");
  for_each_line(call, {&x, &out}, dim, kScanGrain, [&](char* const* starts) {
    const int64_t n = x.shape[dim];
    const int64_t x_stride = x.strides[dim];
    const int64_t out_stride = out.strides[dim];
    const T* src = reinterpret_cast<const T*>(starts[0]);
    Out* dst = reinterpret_cast<Out*>(starts[1]);
    Acc acc = 0;
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<Acc>) {
        acc = sdk::wrap_add(acc, static_cast<Acc>(src[i * x_stride]));
      } else {
        acc += static_cast<Acc>(sdk::to_compute(src[i * x_stride]));
      }
      dst[i * out_stride] = sdk::convert<Out>(acc);
    }
  });
}

}  // namespace

void register_scan_kernels(const sdk::Registrar& r) {
  r.add_each("cumsum", sdk::AllTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&cumsum_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
