#include <string>

#include "core/shape.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {
namespace {

bool compute_contiguous(const DimVector& sizes, const DimVector& strides, int64_t numel) {
  if (numel == 0) return true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (sizes[i] == 0) return true;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

}  // namespace

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      numel_(numel_of(sizes)),
      dtype_(dtype),
      is_contiguous_(compute_contiguous(sizes_, strides_, numel_)),
      keys_(DispatchKeySet::of_backend(storage_->device().type)) {}

TensorImpl::~TensorImpl() = default;

// Note [Tensor.data assignment]
// `t.data = d` in PyTorch swaps what `t` views for what `d` views and keeps
// everything autograd knows about `t` (requires_grad, .grad, hooks, its
// accumulator node), so optimizers and modules holding `t` see new values
// without a copy. The version counter lives on the storage, so `t` then
// counts `d`'s in-place changes, which is what saved-tensor checks need: they
// compare against the storage the data now lives in. The backend key follows
// the new device; the Autograd key stays with the autograd meta.
void TensorImpl::set_data_from(const TensorImpl& other) {
  if (&other == this) return;
  storage_ = other.storage_;
  sizes_ = other.sizes_;
  strides_ = other.strides_;
  storage_offset_ = other.storage_offset_;
  numel_ = other.numel_;
  dtype_ = other.dtype_;
  is_contiguous_ = other.is_contiguous_;
  keys_ = DispatchKeySet::of_backend(storage_->device().type);
  if (autograd_meta_) keys_ = keys_ | DispatchKeySet::of(DispatchKey::Autograd);
  view_base_.reset();
}

void TensorImpl::set_view_base(const std::shared_ptr<TensorImpl>& base) {
  view_base_ = base->is_view() ? base->view_base_ : base;
  set_history_version(storage_->version());
}

int64_t TensorImpl::span_elements() const { return ember::span_elements(sizes_, strides_); }

}  // namespace ember
