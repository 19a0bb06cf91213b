// status.hpp -- errors across the C ABI: the host table, `Error`, `fail()`,
// `check()` and `fence()`, which turns whatever a plugin function throws into
// an `ember_status*` (Note [The fence]).
#ifndef EMBER_SDK_STATUS_HPP_
#define EMBER_SDK_STATUS_HPP_

#include <ember/ember_plugin.h>

#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <utility>

namespace ember::sdk {

namespace detail {
inline const ember_host_api* g_host = nullptr;
}  // namespace detail

// Keeps the host table given to ember_plugin_init (plugin_init() does it).
inline void set_host(const ember_host_api* host) { detail::g_host = host; }
inline const ember_host_api* host() { return detail::g_host; }

// Creates a status through the host. Requires set_host() to have run.
inline ember_status* make_status(ember_status_code code, const char* message) {
  return detail::g_host->status_create(code, message);
}

// The exception plugin code throws; fence() turns it into a status. It can
// also carry a status received from the host (see check()), which the fence
// then passes on unchanged. A host of ABI 1.1 or later reads the status back
// (status_code, status_message), so code() and what() tell what it says;
// under a 1.0 host they only say it came from the host.
class Error : public std::exception {
 public:
  Error(ember_status_code code, std::string message) : code_(code), message_(std::move(message)) {}
  explicit Error(ember_status* passed_on)
      : code_(EMBER_STATUS_INTERNAL), message_("status from the host"), status_(passed_on) {
    const ember_host_api* h = detail::g_host;
    if (h != nullptr && h->struct_size >= EMBER_STRUCT_SIZE(ember_host_api, status_message)) {
      code_ = h->status_code(passed_on);
      message_ = h->status_message(passed_on);
    }
  }

  ember_status_code code() const noexcept { return code_; }
  const char* what() const noexcept override { return message_.c_str(); }
  ember_status* passed_on_status() const noexcept { return status_; }

 private:
  ember_status_code code_;
  std::string message_;
  ember_status* status_ = nullptr;
};

[[noreturn]] inline void fail(ember_status_code code, std::string message) { throw Error(code, std::move(message)); }

// Throws if a host call failed, handing its status on to the fence.
inline void check(ember_status* status) {
  if (status != nullptr) throw Error(status);
}

// Note [The fence]: no exception may cross the C ABI. Every function the host
// calls runs its body through fence(), which returns NULL on success or a
// status made from whatever was thrown; `catch (...)` included, so even a
// foreign exception becomes EMBER_STATUS_INTERNAL instead of std::terminate.
// `fn` may return void or an ember_status*. fenced<> (device_table.hpp) and
// kernel_entry<> (registration.hpp) apply it to a whole function.
template <class Fn>
ember_status* fence(Fn&& fn) noexcept {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<Fn&>>) {
      fn();
      return nullptr;
    } else {
      return fn();
    }
  } catch (const Error& e) {
    if (e.passed_on_status() != nullptr) return e.passed_on_status();
    return make_status(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return make_status(EMBER_STATUS_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return make_status(EMBER_STATUS_INTERNAL, e.what());
  } catch (...) {
    return make_status(EMBER_STATUS_INTERNAL, "unknown exception in plugin");
  }
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_STATUS_HPP_
