// ember_plugin_kernels.hpp -- header-only C++20 helpers for writing kernel
// bodies and registering them, over ember_plugin.hpp.
//
// A kernel body is a plain function `void run(const ember_kernel_call&)`
// that computes one call; a body template `Body<T>` has one per storage type
// T. These helpers cover
//   - `Compute<T>`: the type a body computes T in (ops.md "Floating point");
//   - `element<T>()` and `for_each_index()`: element access by multi-index,
//     for bodies simpler than a StridedLoop (indexing, reductions);
//   - `add_each<Body>()`: registers Body<T> for every T of a dtype group,
//     run through a launcher: `RunNow` (on the calling thread) or one of the
//     plugin's own, such as a queue on the call's stream.
// Everything lives in namespace ember::sdk.
#ifndef EMBER_PLUGIN_KERNELS_HPP_
#define EMBER_PLUGIN_KERNELS_HPP_

#include <ember/ember_plugin.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace ember::sdk {

// float16 and bfloat16 compute in float (ops.md "Floating point"); every
// other storage type computes in itself.
template <class T>
using Compute = std::conditional_t<is_reduced_float_v<T>, float, T>;

// Element `index` (one entry per dimension) of t, as a typed pointer.
template <class T>
T* element(const DLTensor& t, const int64_t* index) {
  int64_t offset = 0;
  for (int d = 0; d < t.ndim; ++d) offset += index[d] * t.strides[d];
  return reinterpret_cast<T*>(data_ptr(t)) + offset;
}

// Calls fn(index) for every multi-index of `shape` in row-major order; a
// 0-d shape has one (empty) index, a shape with a 0 has none.
template <class Fn>
void for_each_index(const int64_t* shape, int ndim, Fn&& fn) {
  int64_t total = 1;
  for (int d = 0; d < ndim; ++d) total *= shape[d];
  std::vector<int64_t> index(static_cast<size_t>(ndim), 0);
  for (int64_t n = 0; n < total; ++n) {
    fn(static_cast<const int64_t*>(index.data()));
    for (int d = ndim - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
  }
}

// A kernel body: computes one call, throwing sdk::Error on failure.
using KernelBody = void (*)(const ember_kernel_call& call);

// A launcher turns a body into the ember_kernel_fn the core calls:
// `L::entry<Body>` must be an ember_kernel_fn that never throws.
template <class L>
concept KernelLauncher = requires(const ember_kernel_call* call) {
  { L::template entry<static_cast<KernelBody>(nullptr)>(call, nullptr) } -> std::same_as<ember_status*>;
};

// The launcher of a synchronous device: the body runs inside the kernel
// call, behind the fence.
struct RunNow {
  template <KernelBody Body>
  static ember_status* entry(const ember_kernel_call* call, void* /*kernel_data*/) noexcept {
    return fence([&] { Body(*call); });
  }
};

// Registers Launcher::entry<&Body<T>::run> for `op` and every T of `types`
// (one of the catalogue's dtype groups, such as FloatingTypes).
template <template <class> class Body, KernelLauncher Launcher = RunNow, class... Ts>
void add_each(const Registrar& registrar, const char* op, TypeList<Ts...> /*types*/,
              uint32_t flags = EMBER_KERNEL_THREAD_SAFE) {
  (registrar.add(op, dtype_v<Ts>, &Launcher::template entry<&Body<Ts>::run>, nullptr, flags), ...);
}

}  // namespace ember::sdk

#endif  // EMBER_PLUGIN_KERNELS_HPP_
