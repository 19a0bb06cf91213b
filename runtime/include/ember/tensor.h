#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/dim_vector.h"
#include "ember/dispatch_key.h"
#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/storage.h"

namespace ember {

namespace autograd {
struct AutogradMeta;
// Deletes autograd state where its type is complete (the autograd layer), so
// the core holds it without knowing it.
struct AutogradMetaDeleter {
  void operator()(AutogradMeta* meta) const;
};
class Node;
}  // namespace autograd

// Metadata of one tensor: a strided window onto a Storage. Views share the
// storage and differ only here.
class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<Storage> storage, DType dtype, IntArrayRef sizes,
             IntArrayRef strides, int64_t storage_offset);
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  const std::shared_ptr<Storage>& storage() const { return storage_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  const DimVector& sizes() const { return sizes_; }
  const DimVector& strides() const { return strides_; }
  int64_t storage_offset() const { return storage_offset_; }
  int64_t numel() const { return numel_; }
  // A view of a tensor autograd knows takes the Autograd step too, so that
  // an in-place write into it reaches its base's history (Note [In-place
  // writes through views]).
  DispatchKeySet keys() const {
    if (view_base_ != nullptr && view_base_->autograd_meta_ != nullptr) {
      return keys_ | DispatchKeySet::of(DispatchKey::Autograd);
    }
    return keys_;
  }
  bool is_contiguous() const { return is_contiguous_; }

  // Bytes this view can touch, from its first element, checked against the
  // storage when a view is made.
  int64_t span_elements() const;

  // Autograd state; null for tensors autograd never touched. Setting it
  // switches the Autograd dispatch key on (Note [Dispatch keys]).
  autograd::AutogradMeta* autograd_meta() const { return autograd_meta_.get(); }
  autograd::AutogradMeta& ensure_autograd_meta();
  void reset_autograd_meta();

  // Points this impl at `other`'s storage, dtype, sizes, strides and offset
  // (no copy); the autograd state stays (Note [Tensor.data assignment]).
  void set_data_from(const TensorImpl& other);
  // Adds the Trace key: the tensor stands for a value of a graph being
  // captured (Note [Trace hooks]); set_data_from takes it away again.
  void mark_traced() { keys_ = keys_ | DispatchKeySet::of(DispatchKey::Trace); }
  void clear_traced() { keys_ = keys_ - DispatchKeySet::of(DispatchKey::Trace); }

  // Views (Note [In-place writes through views]): the tensor a view op was
  // applied to, followed back to one that is not a view itself; null for
  // tensors that own their storage's layout. `history_version` is the
  // storage's version when this view's autograd history was last known to
  // match its base's.
  const std::shared_ptr<TensorImpl>& view_base() const { return view_base_; }
  bool is_view() const { return view_base_ != nullptr; }
  void set_view_base(const std::shared_ptr<TensorImpl>& base);
  uint32_t history_version() const { return history_version_.load(std::memory_order_acquire); }
  void set_history_version(uint32_t version) { history_version_.store(version, std::memory_order_release); }

 private:
  std::shared_ptr<Storage> storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_;
  int64_t numel_;
  DType dtype_;
  bool is_contiguous_;
  DispatchKeySet keys_;
  std::unique_ptr<autograd::AutogradMeta, autograd::AutogradMetaDeleter> autograd_meta_;
  std::shared_ptr<TensorImpl> view_base_;
  std::atomic<uint32_t> history_version_{0};
};

// A reference-counted handle to a TensorImpl; copying a Tensor never copies
// data. A default-constructed Tensor is "undefined".
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  // --- metadata
  const DimVector& sizes() const { return impl_->sizes(); }
  const DimVector& strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes().size()); }
  int64_t numel() const { return impl_->numel(); }
  DType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  size_t element_size() const { return itemsize(dtype()); }
  // Address of the first element (device memory for non-cpu devices).
  void* data_ptr() const;
  template <typename T>
  T* data() const { return static_cast<T*>(data_ptr()); }
  uint32_t version() const { return impl_->storage()->version(); }
  // True when both tensors view the same storage.
  bool is_alias_of(const Tensor& other) const;

  // --- views (no copy; errors name the op and the shapes)
  Tensor view(IntArrayRef shape) const;
  Tensor reshape(IntArrayRef shape) const;  // a view when strides allow, else a copy
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;  // transpose of a tensor with at most 2 dims
  Tensor expand(IntArrayRef shape) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
               int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;

  // --- copies and conversion
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(Device device) const;
  Tensor to(DType dtype) const;
  Tensor to(Device device, DType dtype) const;
  // Copies src into this tensor (broadcasting src, converting dtype, across
  // devices); bumps the version counter.
  Tensor& copy_(const Tensor& src);
  Tensor& fill_(const Scalar& value);
  // The value of a one-element tensor.
  Scalar item() const;
  template <typename T>
  T item() const;
  // Elements in row-major order, converted to T (copies to the host).
  template <typename T>
  std::vector<T> tolist() const;

  // PyTorch-like text: "tensor([1., 2.], dtype=ember.float64)".
  std::string str() const;

  // --- autograd (ember/autograd.h has backward(), grad() and the modes)
  bool requires_grad() const;
  // Only floating tensors can require gradients. Returns *this.
  Tensor& requires_grad_(bool requires_grad = true);
  // A leaf: made by the user, not by a recorded op.
  bool is_leaf() const;
  // The gradient accumulated by backward(); undefined until then.
  Tensor grad() const;
  void set_grad(const Tensor& grad);
  // The node that made this tensor, or null for leaves.
  std::shared_ptr<autograd::Node> grad_fn() const;
  // The same data, cut from the graph.
  Tensor detach() const;
  // Makes this tensor view `data`'s storage with `data`'s dtype, shape and
  // strides, keeping its own autograd identity: PyTorch's `t.data = data`.
  // Throws when the tensor requires grad and `data` is not floating.
  Tensor& set_data(const Tensor& data);
  // backward() from this tensor; a non-scalar tensor needs `gradient`.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                bool create_graph = false) const;

  // --- arithmetic (see ember/ops.h for the full list)
  Tensor operator-() const;
  Tensor& operator+=(const Tensor& other);
  Tensor& operator-=(const Tensor& other);
  Tensor& operator*=(const Tensor& other);
  Tensor& operator/=(const Tensor& other);
  Tensor& operator+=(const Scalar& other);
  Tensor& operator-=(const Scalar& other);
  Tensor& operator*=(const Scalar& other);
  Tensor& operator/=(const Scalar& other);

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace ember
