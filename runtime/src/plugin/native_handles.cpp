#include "plugin/native_handles.h"

#include <algorithm>
#include <cstring>

#include "ember/error.h"
#include "plugin/extension_chain.h"

namespace ember::plugin {

std::optional<ember_native_handles_extension> find_native_handles(const ember_plugin& plugin,
                                                                  uint32_t negotiated_minor) {
  const ember_extension* e =
      find_extension(plugin.extension, EMBER_EXTENSION_NATIVE_HANDLES, negotiated_minor, 3,
                     EMBER_STRUCT_SIZE(ember_native_handles_extension, native_device), "native handles");
  if (e == nullptr) return std::nullopt;
  // Fields a newer minor adds past the core's struct stay unread.
  ember_native_handles_extension record{};
  std::memcpy(&record, e, std::min(e->struct_size, sizeof(record)));
  record.header.struct_size = sizeof(record);
  record.header.next = nullptr;
  if (record.api == nullptr || *record.api == '\0') {
    throw_error(ErrorKind::Runtime, "native handles extension names no native API");
  }
  if (record.native_stream == nullptr || record.native_device == nullptr) {
    throw_error(ErrorKind::Runtime,
                "native handles extension '" + std::string(record.api) + "' leaves a required function NULL");
  }
  return record;
}

}  // namespace ember::plugin
