// collective_engine.hpp -- the collectives extension (ABI 1.3) of an engine
// whose communicator is a C++ object: the table's C callbacks check their
// pointers, hand the engine's functions references, and run behind the
// fence, so an engine writes only create, run, abort and destroy.
#ifndef EMBER_SDK_COLLECTIVE_ENGINE_HPP_
#define EMBER_SDK_COLLECTIVE_ENGINE_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/device_table.hpp>
#include <ember/sdk/status.hpp>

#include <string>

namespace ember::sdk {
namespace detail {

// Name: the engine's name, a `static constexpr char[]`, for the messages.
template <class Communicator, const char* Name, auto Create, auto Run, auto Abort, auto Destroy>
struct EngineCalls {
  static Communicator& of(ember_communicator_t handle) {
    if (handle == nullptr) fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(Name) + ": NULL communicator");
    return *reinterpret_cast<Communicator*>(handle);
  }
  static void create(const ember_communicator_config* config, ember_communicator_t* out) {
    if (config == nullptr || out == nullptr) {
      fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(Name) + ": NULL config or output");
    }
    *out = reinterpret_cast<ember_communicator_t>(Create(*config));
  }
  static void run(ember_communicator_t handle, const ember_collective_call* call) {
    if (call == nullptr) fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(Name) + ": NULL collective call");
    Run(of(handle), *call);
  }
  static void abort(ember_communicator_t handle) { Abort(of(handle)); }
  static void destroy(ember_communicator_t handle) { Destroy(reinterpret_cast<Communicator*>(handle)); }
};

}  // namespace detail

// The extension record of engine `Name`: Create(config) returns a new
// Communicator, Run(communicator, call) and Abort(communicator) act on one,
// Destroy(communicator) releases it. device_types and dtypes are the
// record's space-separated lists.
template <class Communicator, const char* Name, auto Create, auto Run, auto Abort, auto Destroy>
ember_collectives_extension collectives_extension(const char* device_types, const char* dtypes) {
  using Calls = detail::EngineCalls<Communicator, Name, Create, Run, Abort, Destroy>;
  ember_collectives_extension e{};
  e.header = {sizeof(ember_collectives_extension), EMBER_EXTENSION_COLLECTIVES, nullptr};
  e.engine = Name;
  e.device_types = device_types;
  e.dtypes = dtypes;
  e.create_communicator = fenced<&Calls::create>;
  e.run = fenced<&Calls::run>;
  e.abort = fenced<&Calls::abort>;
  e.destroy_communicator = fenced<&Calls::destroy>;
  return e;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_COLLECTIVE_ENGINE_HPP_
