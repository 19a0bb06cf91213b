// ember_plugin.hpp -- header-only C++20 helpers over the C ABI (ember_plugin.h),
// one header per concept under ember/sdk/, included here (async.hpp apart).
//
// Nothing here crosses the ABI: these are conveniences compiled into each
// plugin, so a plugin built against an older copy keeps working.
//   - sdk/status.hpp         `Error`, `fail()`, `check()`, `fence()` (Note [The fence])
//   - sdk/abi_struct.hpp     `write_struct()`: fill an ABI struct the other side has sized
//   - sdk/plugin_entry.hpp   `EMBER_PLUGIN_ENTRY(fn)`: the exported ember_plugin_init
//   - sdk/device_table.hpp   `fenced<fn>` and `device_table()`: the device table
//   - sdk/storage_types.hpp  `float16`, `bfloat16`, `is_reduced_float`
//   - sdk/dtypes.hpp         DLPack conversion, sizes, names, `visit_dtype()`, dtype groups
//   - sdk/tensor.hpp         `data_ptr`, `numel`, `is_contiguous`, `element<T>`, `for_each_index`
//   - sdk/attributes.hpp     `attr_int`, `attr_float`, `attr_bool`, `attr_ints`, `reduced_dims`
//   - sdk/scalar_rules.hpp   compute types, wrap-around, `floor_divide`, `remainder`,
//                            `integer_pow` (host and device)
//   - sdk/loop_geometry.hpp  `LoopGeometry`: a strided walk for device kernels (host and device)
//   - sdk/strided_loop.hpp   `StridedLoop`, `split_range()`, `transform()`
//   - sdk/registration.hpp   `Registrar`, `kernel_entry<>`, launchers, `add_each<Body>()`
// A device whose kernels run after the call returned (queued on a stream)
// also includes <ember/sdk/async.hpp> (`OwnedCall`, `describe_call()`): host
// code only, kept out of this header because nvcc 13 stops with an internal
// error on it, and kernel sources compiled by nvcc include this one.
// Everything lives in namespace ember::sdk.
#ifndef EMBER_PLUGIN_HPP_
#define EMBER_PLUGIN_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/abi_struct.hpp>
#include <ember/sdk/attributes.hpp>
#include <ember/sdk/device_table.hpp>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/host_device.hpp>
#include <ember/sdk/loop_geometry.hpp>
#include <ember/sdk/plugin_entry.hpp>
#include <ember/sdk/registration.hpp>
#include <ember/sdk/scalar_rules.hpp>
#include <ember/sdk/status.hpp>
#include <ember/sdk/storage_types.hpp>
#include <ember/sdk/strided_loop.hpp>
#include <ember/sdk/tensor.hpp>

#endif  // EMBER_PLUGIN_HPP_
