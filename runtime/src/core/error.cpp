#include "ember/error.h"

namespace ember {

void throw_error(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

}  // namespace ember
