// collectives.hpp -- what the core and collective engines both call a
// collective (ABI 1.3), so that their messages agree, and an engine's read
// of the store it was lent.
#ifndef EMBER_SDK_COLLECTIVES_HPP_
#define EMBER_SDK_COLLECTIVES_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/status.hpp>

#include <cstdint>
#include <vector>

namespace ember::sdk {

inline const char* collective_name(ember_collective_kind kind) {
  switch (kind) {
    case EMBER_COLLECTIVE_ALL_REDUCE:
      return "all_reduce";
    case EMBER_COLLECTIVE_BROADCAST:
      return "broadcast";
    case EMBER_COLLECTIVE_ALL_GATHER:
      return "all_gather";
    case EMBER_COLLECTIVE_REDUCE_SCATTER:
      return "reduce_scatter";
    case EMBER_COLLECTIVE_REDUCE:
      return "reduce";
    case EMBER_COLLECTIVE_GATHER:
      return "gather";
    case EMBER_COLLECTIVE_SCATTER:
      return "scatter";
    case EMBER_COLLECTIVE_ALL_TO_ALL:
      return "all_to_all";
    case EMBER_COLLECTIVE_SEND:
      return "send";
    case EMBER_COLLECTIVE_RECV:
      return "recv";
    case EMBER_COLLECTIVE_BARRIER:
      return "barrier";
  }
  return "unknown collective";
}

// The value at `key` of the store a communicator was lent, waiting up to
// timeout_ms for it; throws sdk::Error with the store's status.
inline std::vector<char> store_get(const ember_store_api& store, const char* key, int64_t timeout_ms) {
  std::vector<char> value;
  ember_byte_sink sink{};
  sink.struct_size = sizeof(sink);
  sink.context = &value;
  sink.write = [](ember_byte_sink* self, const void* data, size_t size) -> ember_status* {
    auto* out = static_cast<std::vector<char>*>(self->context);
    out->insert(out->end(), static_cast<const char*>(data), static_cast<const char*>(data) + size);
    return nullptr;
  };
  check(store.get(store.host_context, key, timeout_ms, &sink));
  return value;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_COLLECTIVES_HPP_
