#include "ember/dispatch_key.h"

namespace ember {

LocalDispatchKeys& local_dispatch_keys() {
  thread_local LocalDispatchKeys keys;
  return keys;
}

ExcludeDispatchKeysGuard::ExcludeDispatchKeysGuard(DispatchKeySet keys) : previous_(local_dispatch_keys().excluded) {
  local_dispatch_keys().excluded = previous_ | keys;
}

ExcludeDispatchKeysGuard::~ExcludeDispatchKeysGuard() { local_dispatch_keys().excluded = previous_; }

IncludeDispatchKeysGuard::IncludeDispatchKeysGuard(DispatchKeySet keys) : previous_(local_dispatch_keys().included) {
  local_dispatch_keys().included = previous_ | keys;
}

IncludeDispatchKeysGuard::~IncludeDispatchKeysGuard() { local_dispatch_keys().included = previous_; }

}  // namespace ember
