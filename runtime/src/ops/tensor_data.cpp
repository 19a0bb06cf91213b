// Copies, conversions and host access of Tensor.
#include <cstring>
#include <string>
#include <vector>

#include "core/host_values.h"
#include "core/memory_overlap.h"
#include "core/narrowing.h"
#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "dispatch/trace_hooks.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/tensor.h"
#include "plugin/device_registry.h"

namespace ember {

namespace {

size_t storage_byte_offset(const Tensor& t) { return static_cast<size_t>(t.storage_offset()) * t.element_size(); }

}  // namespace

void* Tensor::data_ptr() const {
  dispatch::materialize_if_tracing(*this, "data_ptr()");
  auto* base = static_cast<char*>(impl_->storage()->data());
  if (base == nullptr) return nullptr;
  return base + storage_offset() * static_cast<int64_t>(element_size());
}

bool Tensor::is_alias_of(const Tensor& other) const {
  return impl_->storage() == other.impl()->storage();
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : clone(); }

Tensor Tensor::clone() const {
  Tensor out = empty(sizes(), TensorOptions(dtype(), device()));
  out.copy_(*this);
  return out;
}

Tensor Tensor::to(Device target) const { return to(target, dtype()); }

Tensor Tensor::to(DType target) const { return to(device(), target); }

Tensor Tensor::to(Device target, DType target_dtype) const {
  if (target == device() && target_dtype == dtype()) return *this;
  // A dense layout is kept, as PyTorch's preserve_format keeps it: a permuted
  // result moves across devices as its bytes are, with no compaction first.
  const TensorOptions options(target_dtype, target);
  Tensor out = is_non_overlapping_and_dense(sizes(), strides()) ? empty_strided(sizes(), strides(), options)
                                                                : empty(sizes(), options);
  out.copy_(*this);
  return out;
}

Tensor& Tensor::copy_(const Tensor& src) {
  impl_->storage()->check_writable("copy");
  check_no_internal_overlap(*this, "copy_");
  Tensor source = input_for_inplace(*this, src.expand(sizes()), "copy_");
  // A meta tensor holds no data: a copy from another device into one checks
  // the shapes only, as in PyTorch (x.to("meta")).
  if (device().is_meta() && !source.device().is_meta()) return *this;
  if (device().is_meta() || source.device() == device()) {
    static const dispatch::Op& op = dispatch::op(dispatch::OpId::Copy);
    dispatch::call_into(op, {source}, *this);
    return *this;
  }
  dispatch::materialize_if_tracing(source, "a copy across devices");
  dispatch::materialize_if_tracing(*this, "a copy across devices");
  if (source.device().is_meta()) {
    throw_error(ErrorKind::Runtime, "copy_: cannot copy data out of a meta tensor into a " + device().str() + " tensor");
  }
  // Across devices only dense bytes move: convert (and compact, unless both
  // sides share one dense layout) on the source device, move, then scatter
  // into this tensor's layout if needed.
  const bool one_dense_layout = source.strides() == strides() && is_non_overlapping_and_dense(sizes(), strides());
  Tensor packed = one_dense_layout ? source.to(dtype()) : source.to(dtype()).contiguous();
  Tensor landing = one_dense_layout || is_contiguous() ? *this : empty(sizes(), TensorOptions(dtype(), device()));
  // Base pointers and byte offsets: Note [Device pointers are opaque].
  plugin::copy_bytes(device(), landing.impl()->storage()->data(), packed.device(), packed.impl()->storage()->data(),
                     static_cast<size_t>(numel()) * element_size(), storage_byte_offset(landing),
                     storage_byte_offset(packed));
  if (landing.impl() != impl()) {
    copy_(landing);
  } else {
    impl_->storage()->bump_version();
  }
  return *this;
}

Tensor& Tensor::fill_(const Scalar& value) {
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::Fill);
  const DType d = dtype();
  if (is_integral(d, true) && value.is_floating()) {
    throw_error(ErrorKind::Type, "fill_: cannot fill a " + std::string(dtype_name(d)) +
                                     " tensor with the floating point value " + value.str());
  }
  check_fits(value, d, "fill_");
  ember_attr attr = d == DType::Bool      ? dispatch::attr_bool("value", value.to_bool())
                    : is_floating(d)     ? dispatch::attr_float("value", value.to_double())
                                         : dispatch::attr_int("value", value.to_int());
  dispatch::call_into(op, {}, *this, {attr});
  return *this;
}

namespace {

// Row-major elements of t, as raw bytes in t's dtype, on the host.
std::vector<unsigned char> host_bytes(const Tensor& t) {
  dispatch::materialize_if_tracing(t, "tolist(), printing or a host copy");
  if (t.device().is_meta()) {
    throw_error(ErrorKind::Runtime, "cannot read the values of a meta tensor (it has no data)");
  }
  Tensor packed = t.contiguous();
  std::vector<unsigned char> bytes(static_cast<size_t>(t.numel()) * t.element_size());
  if (!bytes.empty()) {
    plugin::copy_to_host(bytes.data(), packed.device(), packed.impl()->storage()->data(), bytes.size(),
                         storage_byte_offset(packed));
  }
  return bytes;
}

}  // namespace

Scalar Tensor::item() const {
  dispatch::materialize_if_tracing(*this, "item()");
  if (numel() != 1) {
    throw_error(ErrorKind::Runtime, "a Tensor with " + std::to_string(numel()) +
                                        " elements cannot be converted to Scalar");
  }
  const auto bytes = host_bytes(*this);
  if (dtype() == DType::Bool) return Scalar(bytes[0] != 0);
  if (is_floating(dtype())) return Scalar(load_as_double(bytes.data(), dtype()));
  return Scalar(load_as_int(bytes.data(), dtype()));
}

template <typename T>
T Tensor::item() const {
  const Scalar s = item();
  if constexpr (std::is_same_v<T, bool>) {
    return s.to_bool();
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(s.to_double());
  } else {
    return static_cast<T>(s.is_floating() ? static_cast<int64_t>(s.to_double()) : s.to_int());
  }
}

template <typename T>
std::vector<T> Tensor::tolist() const {
  const auto bytes = host_bytes(*this);
  std::vector<T> out(static_cast<size_t>(numel()));
  const size_t step = element_size();
  for (size_t i = 0; i < out.size(); ++i) {
    const void* p = bytes.data() + i * step;
    if constexpr (std::is_floating_point_v<T>) {
      out[i] = static_cast<T>(load_as_double(p, dtype()));
    } else {
      out[i] = static_cast<T>(load_as_int(p, dtype()));
    }
  }
  return out;
}

#define EMBER_INSTANTIATE_HOST_ACCESS(T)     \
  template T Tensor::item<T>() const;        \
  template std::vector<T> Tensor::tolist<T>() const;
EMBER_INSTANTIATE_HOST_ACCESS(bool)
EMBER_INSTANTIATE_HOST_ACCESS(uint8_t)
EMBER_INSTANTIATE_HOST_ACCESS(int8_t)
EMBER_INSTANTIATE_HOST_ACCESS(int16_t)
EMBER_INSTANTIATE_HOST_ACCESS(int32_t)
EMBER_INSTANTIATE_HOST_ACCESS(int64_t)
EMBER_INSTANTIATE_HOST_ACCESS(float)
EMBER_INSTANTIATE_HOST_ACCESS(double)
#undef EMBER_INSTANTIATE_HOST_ACCESS

Tensor Tensor::operator-() const { return neg(*this); }
Tensor& Tensor::operator+=(const Tensor& other) { return add_(*this, other); }
Tensor& Tensor::operator-=(const Tensor& other) { return sub_(*this, other); }
Tensor& Tensor::operator*=(const Tensor& other) { return mul_(*this, other); }
Tensor& Tensor::operator/=(const Tensor& other) { return div_(*this, other); }
Tensor& Tensor::operator+=(const Scalar& other) { return add_(*this, scalar_tensor(other, device())); }
Tensor& Tensor::operator-=(const Scalar& other) { return sub_(*this, scalar_tensor(other, device())); }
Tensor& Tensor::operator*=(const Scalar& other) { return mul_(*this, scalar_tensor(other, device())); }
Tensor& Tensor::operator/=(const Scalar& other) { return div_(*this, scalar_tensor(other, device())); }

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace ember
