#pragma once
// The records a plugin hangs on ember_plugin.extension (ABI 1.2 onwards):
// one walk of the chain for every kind of record the loader reads.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include <ember/ember_plugin.h>

namespace ember::plugin {

// The first record of `type` on `chain`, or null when there is none or the
// session's negotiated minor is below `since_minor`, the minor that defined
// it. Throws the reason for quarantine when the chain loops or the record is
// smaller than `min_size` bytes (`what` names the record in that message).
const ember_extension* find_extension(const ember_extension* chain, ember_extension_type type,
                                      uint32_t negotiated_minor, uint32_t since_minor, size_t min_size,
                                      const char* what);

// The words of a space-separated list a record carries (its device types,
// dtypes, ops); NULL is the empty list.
std::set<std::string> record_words(const char* text);

}  // namespace ember::plugin
