// collectives.hpp -- what the core and collective engines both call a
// collective (ABI 1.3), so that their messages agree.
#ifndef EMBER_SDK_COLLECTIVES_HPP_
#define EMBER_SDK_COLLECTIVES_HPP_

#include <ember/ember_plugin.h>

namespace ember::sdk {

inline const char* collective_name(ember_collective_kind kind) {
  switch (kind) {
    case EMBER_COLLECTIVE_ALL_REDUCE: return "all_reduce";
    case EMBER_COLLECTIVE_BROADCAST: return "broadcast";
    case EMBER_COLLECTIVE_ALL_GATHER: return "all_gather";
    case EMBER_COLLECTIVE_REDUCE_SCATTER: return "reduce_scatter";
    case EMBER_COLLECTIVE_REDUCE: return "reduce";
    case EMBER_COLLECTIVE_GATHER: return "gather";
    case EMBER_COLLECTIVE_SCATTER: return "scatter";
    case EMBER_COLLECTIVE_ALL_TO_ALL: return "all_to_all";
    case EMBER_COLLECTIVE_SEND: return "send";
    case EMBER_COLLECTIVE_RECV: return "recv";
    case EMBER_COLLECTIVE_BARRIER: return "barrier";
  }
  return "unknown collective";
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_COLLECTIVES_HPP_
