// Registering one kernel template for every dtype of a catalogue group.
#pragma once

#include <ember/ember_plugin.hpp>

#include "scalar.cuh"

namespace ember::gpu {

template <class T>
using device_t = typename DeviceTypeOf<T>::type;

// Registers Kernel<Op>::run<T> for `op` and each dtype of the group, T being
// the dtype's device storage type.
template <template <class> class Kernel, class Op, class... Ts>
void add_kernels(const sdk::Registrar& r, const char* op, sdk::TypeList<Ts...>,
                 uint32_t flags = EMBER_KERNEL_THREAD_SAFE) {
  (r.add(op, sdk::dtype_v<Ts>, sdk::kernel_entry<&Kernel<Op>::template run<device_t<Ts>>>, nullptr, flags), ...);
}

}  // namespace ember::gpu
