// The autograd part of TensorImpl: the core holds autograd state by pointer
// only, so the code that creates and destroys it lives here, in the layer
// that defines it, and core/ needs no autograd header.
#include "autograd/node.h"
#include "ember/tensor.h"

namespace ember {

void autograd::AutogradMetaDeleter::operator()(AutogradMeta* meta) const { delete meta; }

autograd::AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_meta_) {
    autograd_meta_.reset(new autograd::AutogradMeta());
    keys_ = keys_ | DispatchKeySet::of(DispatchKey::Autograd);
  }
  return *autograd_meta_;
}

void TensorImpl::reset_autograd_meta() {
  autograd_meta_.reset();
  keys_ = keys_ - DispatchKeySet::of(DispatchKey::Autograd);
}

}  // namespace ember
