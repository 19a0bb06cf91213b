// Shared machinery of the elementwise kernels: the threaded map over a
// kernel call, and registration of one op for a list of dtypes. The scalar
// rules (compute types, wrap-around) are the SDK's (ember/sdk/scalar_rules.hpp).
#ifndef EMBER_PLUGINS_CPU_KERNELS_ELEMENTWISE_H_
#define EMBER_PLUGINS_CPU_KERNELS_ELEMENTWISE_H_

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <ember/ember_plugin.hpp>

#include "../parallel.h"
#include "crossed_tiles.h"
#include "grain.h"
#include "isa_clones.h"

namespace ember::cpu {

namespace detail {
template <class Out, class... In, class Fn, size_t... I>
void map_elements(const ember_kernel_call& call, const Fn& fn, std::index_sequence<I...>) {
  const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[I]...}, sdk::LoopOrder::Memory);
  const auto op = [&fn](In... x) { return sdk::convert<Out>(fn(sdk::to_compute(x)...)); };
  run_elementwise(loop, kElementwiseGrain,
                  [&](char* const* ptrs, const int64_t* strides, int64_t n, const int64_t* row_strides, int64_t rows) {
                    char* row[] = {ptrs[0], ptrs[I + 1]...};
                    for (int64_t r = 0; r < rows; ++r, advance_rows(row, row_strides)) {
                      sdk::transform_run<Out, In...>(row, strides, n, op);
                    }
                  });
}
}  // namespace detail

// outputs[0] = fn(inputs[0], inputs[1], ...) elementwise, with storage types
// (Out, In...); fn receives and returns compute types.
template <class Out, class... In, class Fn>
void map_elements(const ember_kernel_call& call, const Fn& fn) {
  detail::map_elements<Out, In...>(call, fn, std::index_sequence_for<In...>{});
}

// dst += value with the catalogue's add: logical or for bool, wrap-around
// for integers, and for floats the sum in the compute type rounded once.
template <class T>
void add_into(T& dst, T value) {
  if constexpr (std::is_same_v<T, bool>) {
    dst = dst || value;
  } else if constexpr (sdk::is_integer_v<T>) {
    dst = sdk::wrap_add(dst, value);
  } else {
    dst = sdk::convert<T>(sdk::to_compute(dst) + sdk::to_compute(value));
  }
}

// True if pred(x) holds for some element of `t` (storage type T, compute
// values); lets a kernel reject bad data before writing any output.
template <class T, class Pred>
bool any_element(const DLTensor& t, const Pred& pred) {
  const sdk::StridedLoop loop{&t};
  std::atomic<bool> found{false};
  parallel_for(0, loop.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      bool hit = false;
      for (int64_t i = 0; i < n; ++i) {
        hit |= pred(sdk::to_compute(*reinterpret_cast<const T*>(ptrs[0] + i * strides[0])));
      }
      if (hit) found.store(true, std::memory_order_relaxed);
    });
  });
  return found.load();
}

// Registers Kind::run<Op, T> for every T of a TypeList. A Kind is a struct
// with a static `template <class Op, class T> void run(const ember_kernel_call&)`
// (the shape of the loop: same-type result, predicate, checked division...).
template <class Kind, class Op, class Types>
void register_op(const sdk::Registrar& registrar, const char* op_name, Types types, Op) {
  registrar.add_each(op_name, types, [](auto tag) {
    using T = typename decltype(tag)::type;
    return &sdk::kernel_entry<&Kind::template run<Op, T>>;
  });
}

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_ELEMENTWISE_H_
