// device_table.hpp -- the device table without the boilerplate:
// `fenced<fn>` is the C callback of a C++ function that throws, and
// `device_table()` starts an ember_device_api a plugin fills with them.
//
//   void copy(const ember_copy_args* args);  // throws sdk::Error on failure
//   ...
//   ember_device_api make_device_api() {
//     ember_device_api api = sdk::device_table("emu", kDLExtDev);
//     api.device_count = sdk::fenced<device_count>;
//     api.copy = sdk::fenced<copy>;
//     ...
//     return api;
//   }
#ifndef EMBER_SDK_DEVICE_TABLE_HPP_
#define EMBER_SDK_DEVICE_TABLE_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/status.hpp>

#include <cstdint>
#include <type_traits>

namespace ember::sdk {

namespace detail {
template <class Fn>
struct Fenced;
template <class R, class... Args>
struct Fenced<R (*)(Args...)> {
  static_assert(std::is_void_v<R> || std::is_same_v<R, ember_status*>,
                "a fenced function returns void (and throws on failure) or an ember_status*");
  template <R (*Fn)(Args...)>
  static ember_status* call(Args... args) noexcept {
    return fence([&] { return Fn(args...); });
  }
};
template <class R, class... Args>
struct Fenced<R (*)(Args...) noexcept> : Fenced<R (*)(Args...)> {};
}  // namespace detail

// The C callback that runs `Fn` behind the fence (Note [The fence]): it takes
// Fn's arguments and returns NULL, or the status of what Fn threw. Fn returns
// void or an ember_status* of its own. The callback's type is checked where
// it is stored, so a slot given a function of the wrong signature does not
// compile.
template <auto Fn>
inline constexpr auto fenced = &detail::Fenced<decltype(Fn)>::template call<Fn>;

// A device table with struct_size, the device type names and the
// EMBER_DEVICE_* thread-safety flags set, every function slot NULL (each
// slot's documented default in ember_plugin.h) for the plugin to fill.
inline ember_device_api device_table(const char* device_type, DLDeviceType dl_device_type, uint32_t thread_safety = 0) {
  ember_device_api api{};
  api.struct_size = sizeof api;
  api.device_type = device_type;
  api.dl_device_type = dl_device_type;
  api.thread_safety = thread_safety;
  return api;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_DEVICE_TABLE_HPP_
