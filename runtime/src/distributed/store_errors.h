#pragma once
// The messages every store gives when a wait runs out, so that a user reads
// the same words whichever store they configured.
#include <string>
#include <vector>

#include "distributed/store.h"

namespace ember::distributed {

// "['a', 'b']"
std::string format_keys(const std::vector<std::string>& keys);

// Throws ErrorKind::DistributedStore: "<store>: wait for keys [...] timed out after N ms".
[[noreturn]] void throw_wait_timeout(const std::string& store, const std::vector<std::string>& keys,
                                     Milliseconds waited);

}  // namespace ember::distributed
