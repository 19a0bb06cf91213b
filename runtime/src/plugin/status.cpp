#include "plugin/status.h"

#include <memory>
#include <utility>

namespace ember::plugin {

ember_status* make_status(ember_status_code code, std::string message) {
  return new ember_status{code, std::move(message)};
}

ErrorKind error_kind_of(ember_status_code code) {
  switch (code) {
    case EMBER_STATUS_INVALID_ARGUMENT:
      return ErrorKind::Value;
    case EMBER_STATUS_OUT_OF_RANGE:
      return ErrorKind::Index;
    case EMBER_STATUS_UNIMPLEMENTED:
      return ErrorKind::NotImplemented;
    case EMBER_STATUS_OUT_OF_MEMORY:
      return ErrorKind::OutOfMemory;
    default:
      return ErrorKind::Runtime;
  }
}

void throw_if_error(ember_status* status, std::string_view context) {
  if (status == nullptr) return;
  std::unique_ptr<ember_status> owned(status);
  std::string message(context);
  if (!message.empty()) message += ": ";
  message += owned->message;
  throw Error(error_kind_of(owned->code), message);
}

}  // namespace ember::plugin
