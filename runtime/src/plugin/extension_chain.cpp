#include "plugin/extension_chain.h"

#include <sstream>
#include <string>

#include "ember/error.h"

namespace ember::plugin {

const ember_extension* find_extension(const ember_extension* chain, ember_extension_type type,
                                      uint32_t negotiated_minor, uint32_t since_minor, size_t min_size,
                                      const char* what) {
  if (negotiated_minor < since_minor) return nullptr;
  // A chain is a handful of records; a longer one points back into itself.
  int guard = 0;
  for (const ember_extension* e = chain; e != nullptr; e = e->next) {
    if (++guard > 64) throw_error(ErrorKind::Runtime, "the extension chain has more than 64 records (a cycle?)");
    if (e->type != type) continue;
    if (e->struct_size < min_size) {
      throw_error(ErrorKind::Runtime, std::string(what) + " extension struct_size " + std::to_string(e->struct_size) +
                                          " is smaller than ABI 1." + std::to_string(since_minor) + "'s " +
                                          std::to_string(min_size));
    }
    return e;
  }
  return nullptr;
}

std::set<std::string> record_words(const char* text) {
  std::set<std::string> out;
  std::istringstream s(text != nullptr ? text : "");
  for (std::string w; s >> w;) out.insert(w);
  return out;
}

}  // namespace ember::plugin
