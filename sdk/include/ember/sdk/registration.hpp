// registration.hpp -- registering kernels: `Registrar`, `kernel_entry<>`
// (a throwing function as an ember_kernel_fn), and `add_each<Body>()`, which
// registers a body template for every dtype of a group through a launcher
// (`RunNow`, or a plugin's own, such as a queue on the call's stream).
#ifndef EMBER_SDK_REGISTRATION_HPP_
#define EMBER_SDK_REGISTRATION_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace ember::sdk {

// Adapts `void Fn(const ember_kernel_call&)` or
// `void Fn(const ember_kernel_call&, void* kernel_data)` to ember_kernel_fn.
template <auto Fn>
ember_status* kernel_entry(const ember_kernel_call* call, void* kernel_data) noexcept {
  return fence([&] {
    if constexpr (std::is_invocable_v<decltype(Fn), const ember_kernel_call&, void*>) {
      Fn(*call, kernel_data);
    } else {
      Fn(*call);
    }
  });
}

// Registers kernels during ember_plugin.register_kernels; a failure throws an
// Error carrying the host's status (the plugin table stores register_kernels
// as fenced<register_kernels>, which passes that status on).
class Registrar {
 public:
  explicit Registrar(ember_registrar* registrar) : registrar_(registrar) {}

  void add(const char* op, ember_dtype dtype, ember_kernel_fn kernel, void* data = nullptr,
           uint32_t flags = EMBER_KERNEL_THREAD_SAFE) const {
    ember_kernel_registration reg{};
    reg.struct_size = sizeof reg;
    reg.op_name = op;
    reg.dtype = dtype;
    reg.kernel = kernel;
    reg.kernel_data = data;
    reg.flags = flags;
    check(host()->register_kernel(registrar_, &reg));
  }

  // One kernel for several dtypes (it dispatches on the dtype itself).
  void add(const char* op, std::initializer_list<ember_dtype> dtypes, ember_kernel_fn kernel, void* data = nullptr,
           uint32_t flags = EMBER_KERNEL_THREAD_SAFE) const {
    for (ember_dtype dtype : dtypes) add(op, dtype, kernel, data, flags);
  }

  // One kernel per type of a TypeList: make(TypeTag<T>{}) returns the
  // ember_kernel_fn for T, typically kernel_entry<&my_kernel<T>>.
  template <class... Ts, class Make>
  void add_each(const char* op, TypeList<Ts...>, Make&& make, uint32_t flags = EMBER_KERNEL_THREAD_SAFE) const {
    (add(op, dtype_v<Ts>, make(TypeTag<Ts>{}), nullptr, flags), ...);
  }

 private:
  ember_registrar* registrar_;
};

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

#endif  // EMBER_SDK_REGISTRATION_HPP_
