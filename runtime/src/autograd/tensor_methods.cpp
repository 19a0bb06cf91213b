// Tensor's autograd surface (declared in ember/tensor.h).
#include "autograd/inplace_views.h"
#include "autograd/node.h"
#include "dispatch/trace_hooks.h"
#include "ember/autograd.h"
#include "ember/error.h"

namespace ember {

bool Tensor::requires_grad() const {
  if (impl_->is_view()) autograd::refresh_view_history(*this);
  const autograd::AutogradMeta* meta = impl_->autograd_meta();
  return meta != nullptr && (meta->requires_grad || meta->grad_fn != nullptr);
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  if (!is_leaf()) {
    throw_error(ErrorKind::Runtime,
                "you can only change requires_grad flags of leaf variables; use detach() to get a leaf");
  }
  if (requires_grad && !is_floating(dtype())) {
    throw_error(ErrorKind::Runtime,
                "only Tensors of floating point dtype can require gradients, got " + std::string(dtype_name(dtype())));
  }
  if (requires_grad) {
    impl_->ensure_autograd_meta().requires_grad = true;
  } else if (impl_->autograd_meta() != nullptr) {
    impl_->autograd_meta()->requires_grad = false;
  }
  return *this;
}

bool Tensor::is_leaf() const {
  if (impl_->is_view()) autograd::refresh_view_history(*this);
  const autograd::AutogradMeta* meta = impl_->autograd_meta();
  return meta == nullptr || meta->grad_fn == nullptr;
}

Tensor Tensor::grad() const {
  autograd::AutogradMeta* meta = impl_->autograd_meta();
  if (meta == nullptr) return Tensor();
  std::lock_guard<std::mutex> lock(meta->mutex);
  return meta->grad;
}

void Tensor::set_grad(const Tensor& grad) {
  if (grad.defined() && !(grad.sizes() == sizes())) {
    throw_error(ErrorKind::Runtime, "assigned grad has shape " + shape_str(grad.sizes()) +
                                        " but the tensor has shape " + shape_str(sizes()));
  }
  autograd::AutogradMeta& meta = impl_->ensure_autograd_meta();
  std::lock_guard<std::mutex> lock(meta.mutex);
  meta.grad = grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  if (impl_->is_view()) autograd::refresh_view_history(*this);
  const autograd::AutogradMeta* meta = impl_->autograd_meta();
  return meta == nullptr ? nullptr : meta->grad_fn;
}

Tensor Tensor::detach() const {
  Tensor out(std::make_shared<TensorImpl>(impl_->storage(), dtype(), sizes(), strides(), storage_offset()));
  if (dispatch::is_tracing(*this)) {
    out.impl()->mark_traced();
    if (const dispatch::TraceHooks* hooks = dispatch::trace_hooks(); hooks != nullptr && hooks->alias != nullptr) {
      hooks->alias(*this, out);
    }
  }
  return out;
}

Tensor& Tensor::set_data(const Tensor& data) {
  if (!data.defined()) throw_error(ErrorKind::Value, "set_data: the new data is an undefined tensor");
  if (requires_grad() && !is_floating(data.dtype())) {
    throw_error(ErrorKind::Runtime, "set_data: a tensor that requires gradients needs floating point data, got " +
                                        std::string(dtype_name(data.dtype())));
  }
  impl_->set_data_from(*data.impl());
  return *this;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  autograd::backward({*this}, gradient.defined() ? std::vector<Tensor>{gradient} : std::vector<Tensor>{}, retain_graph,
                     create_graph);
}

}  // namespace ember
