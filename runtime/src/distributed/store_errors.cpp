#include "distributed/store_errors.h"

#include "ember/error.h"

namespace ember::distributed {

std::string format_keys(const std::vector<std::string>& keys) {
  std::string text = "[";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) text += ", ";
    text += "'" + keys[i] + "'";
  }
  return text + "]";
}

void throw_wait_timeout(const std::string& store, const std::vector<std::string>& keys, Milliseconds waited) {
  throw_error(ErrorKind::DistributedStore, store + ": wait for keys " + format_keys(keys) + " timed out after " +
                                               std::to_string(waited.count()) + " ms");
}

}  // namespace ember::distributed
