#include "ember/autograd.h"
#include "ember/dispatch_key.h"

namespace ember::autograd {
namespace {

const DispatchKeySet kAutograd = DispatchKeySet::of(DispatchKey::Autograd);

void set_grad_enabled(bool enabled) {
  LocalDispatchKeys& keys = local_dispatch_keys();
  keys.excluded = enabled ? keys.excluded - kAutograd : keys.excluded | kAutograd;
}

}  // namespace

bool is_grad_enabled() { return !local_dispatch_keys().excluded.has(DispatchKey::Autograd); }

NoGradGuard::NoGradGuard() : was_enabled_(is_grad_enabled()) { set_grad_enabled(false); }
NoGradGuard::~NoGradGuard() { set_grad_enabled(was_enabled_); }

EnableGradGuard::EnableGradGuard() : was_enabled_(is_grad_enabled()) { set_grad_enabled(true); }
EnableGradGuard::~EnableGradGuard() { set_grad_enabled(was_enabled_); }

}  // namespace ember::autograd
