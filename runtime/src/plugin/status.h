#pragma once

#include <string>
#include <string_view>

#include <ember/ember_plugin.h>

#include "ember/error.h"

// The concrete status object behind the ABI's opaque handle.
struct ember_status {
  ember_status_code code;
  std::string message;
};

namespace ember::plugin {

ember_status* make_status(ember_status_code code, std::string message);
ErrorKind error_kind_of(ember_status_code code);

// Destroys `status`; if it is an error, throws an ember::Error whose message
// is "<context>: <plugin message>".
void throw_if_error(ember_status* status, std::string_view context);

}  // namespace ember::plugin
