#include <cmath>
#include <limits>
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
#include "ember/random_state.h"
#include "ops/random_stream.h"
#include "plugin/device_registry.h"

namespace ember {
namespace {

DType dtype_or_default(const TensorOptions& options) { return options.dtype.value_or(default_float_dtype()); }

void check_sizes(IntArrayRef shape, std::string_view op) {
  for (int64_t s : shape) {
    if (s < 0) {
      throw_error(ErrorKind::Runtime, std::string(op) + ": trying to create tensor with negative dimension " +
                                          std::to_string(s) + ": " + shape_str(shape));
    }
  }
}

template <typename T>
DType natural_dtype_of() {
  if constexpr (std::is_same_v<T, bool>) return DType::Bool;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::UInt8;
  if constexpr (std::is_same_v<T, int8_t>) return DType::Int8;
  if constexpr (std::is_same_v<T, int16_t>) return DType::Int16;
  if constexpr (std::is_same_v<T, int32_t>) return DType::Int32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::Int64;
  if constexpr (std::is_same_v<T, float>) return DType::Float32;
  if constexpr (std::is_same_v<T, double>) return DType::Float64;
}

Tensor& random_fill(Tensor& t, const char* op_name, const char* a_name, double a, const char* b_name, double b) {
  if (!is_floating(t.dtype())) {
    throw_error(ErrorKind::NotImplemented, std::string(op_name) + "_: expected a floating point tensor, got " +
                                               std::string(dtype_name(t.dtype())));
  }
  check_no_internal_overlap(t, std::string(op_name) + "_");
  const dispatch::Op& op = dispatch::OpRegistry::get().at(op_name);
  const random_stream::Draw draw = random_stream::reserve(static_cast<uint64_t>(t.numel()));
  dispatch::call_into(op, {}, t,
                      {dispatch::attr_float(a_name, a), dispatch::attr_float(b_name, b),
                       dispatch::attr_int("seed", static_cast<int64_t>(draw.seed)),
                       dispatch::attr_int("offset", static_cast<int64_t>(draw.offset))});
  return t;
}

// ceil((end - start) / step), exact for integers (a 128-bit difference
// cannot wrap); a count past int64 is refused as PyTorch does.
int64_t arange_length(const Scalar& start, const Scalar& end, const Scalar& step, bool all_integral) {
  bool fits = false;
  int64_t length = 0;
  if (all_integral) {
    const __int128 distance = static_cast<__int128>(end.to_int()) - start.to_int();
    const int64_t st = step.to_int();
    const __int128 count = (distance + st - (st > 0 ? 1 : -1)) / st;
    fits = count <= std::numeric_limits<int64_t>::max();
    length = static_cast<int64_t>(count);
  } else {
    const double count = std::ceil((end.to_double() - start.to_double()) / step.to_double());
    fits = count < 0x1p63;
    length = fits ? static_cast<int64_t>(count) : 0;
  }
  if (!fits) {
    throw_error(ErrorKind::Runtime, "arange: the range " + start.str() + " -> " + end.str() + " with step " +
                                        step.str() +
                                        " holds more than 2^63 - 1 values (invalid size, possible overflow)");
  }
  return length;
}

// A tensor made while a graph is captured is the trace's to know of (Note
// [Trace hooks]).
Tensor note_if_tracing(Tensor t) {
  if (dispatch::tracing_on_this_thread()) {
    if (const dispatch::TraceHooks* hooks = dispatch::trace_hooks(); hooks != nullptr && hooks->fresh_tensor) {
      hooks->fresh_tensor(t);
    }
  }
  return t;
}

}  // namespace

Tensor empty(IntArrayRef shape, TensorOptions options) {
  check_sizes(shape, "empty");
  const DType dtype = dtype_or_default(options);
  const int64_t nbytes = storage_nbytes(shape, itemsize(dtype));
  auto storage = plugin::allocate_storage(options.device, static_cast<size_t>(nbytes));
  return note_if_tracing(
      Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, shape, contiguous_strides(shape), 0)));
}

Tensor empty_strided(IntArrayRef shape, IntArrayRef strides, TensorOptions options) {
  check_sizes(shape, "empty_strided");
  if (shape.size() != strides.size()) {
    throw_error(ErrorKind::Runtime, "empty_strided: dimensionality of sizes " + shape_str(shape) +
                                        " must match dimensionality of strides " + shape_str(strides));
  }
  for (int64_t stride : strides) {
    if (stride < 0) {
      throw_error(ErrorKind::Runtime,
                  "empty_strided: negative strides are not supported, got strides " + shape_str(strides));
    }
  }
  const DType dtype = dtype_or_default(options);
  const int64_t nbytes = storage_nbytes(shape, strides, 0, itemsize(dtype));
  auto storage = plugin::allocate_storage(options.device, static_cast<size_t>(nbytes));
  return note_if_tracing(Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, shape, strides, 0)));
}

Tensor full(IntArrayRef shape, const Scalar& value, TensorOptions options) {
  if (!options.dtype) options.dtype = value.natural_dtype();
  Tensor t = empty(shape, options);
  t.fill_(value);
  return t;
}

Tensor zeros(IntArrayRef shape, TensorOptions options) {
  Tensor t = empty(shape, options);
  t.fill_(is_floating(t.dtype()) ? Scalar(0.0) : Scalar(int64_t{0}));
  return t;
}

Tensor ones(IntArrayRef shape, TensorOptions options) {
  Tensor t = empty(shape, options);
  t.fill_(is_floating(t.dtype()) ? Scalar(1.0) : Scalar(int64_t{1}));
  return t;
}

Tensor empty_like(const Tensor& t) { return empty(t.sizes(), TensorOptions(t.dtype(), t.device())); }
Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), TensorOptions(t.dtype(), t.device())); }
Tensor ones_like(const Tensor& t) { return ones(t.sizes(), TensorOptions(t.dtype(), t.device())); }
Tensor full_like(const Tensor& t, const Scalar& value) {
  return full(t.sizes(), value, TensorOptions(t.dtype(), t.device()));
}

Tensor arange(const Scalar& end, TensorOptions options) { return arange(Scalar(int64_t{0}), end, 1, options); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions options) {
  const bool all_integral = !start.is_floating() && !end.is_floating() && !step.is_floating();
  const DType dtype = options.dtype.value_or(all_integral ? DType::Int64 : default_float_dtype());
  const double s = start.to_double();
  const double e = end.to_double();
  const double st = step.to_double();
  if (st == 0.0) throw_error(ErrorKind::Runtime, "arange: step must be nonzero");
  if (!std::isfinite(s) || !std::isfinite(e)) {
    throw_error(ErrorKind::Runtime, "arange: unsupported range: " + start.str() + " -> " + end.str());
  }
  if ((st > 0 && e < s) || (st < 0 && e > s)) {
    throw_error(ErrorKind::Runtime, "arange: upper bound and larger bound inconsistent with step sign");
  }
  const int64_t n = arange_length(start, end, step, all_integral);
  Tensor t = empty({n}, TensorOptions(dtype, options.device));
  static const dispatch::Op& op = dispatch::op(dispatch::OpId::Arange);
  if (is_floating(dtype)) {
    dispatch::call_into(op, {}, t, {dispatch::attr_float("start", s), dispatch::attr_float("step", st)});
  } else {
    if (!all_integral) throw_error(ErrorKind::Type, "arange: an integer dtype needs integer start, end and step");
    dispatch::call_into(op, {}, t,
                        {dispatch::attr_int("start", start.to_int()), dispatch::attr_int("step", step.to_int())});
  }
  return t;
}

Tensor scalar_tensor(const Scalar& value, TensorOptions options) {
  const DType dtype = options.dtype.value_or(value.natural_dtype());
  Tensor t = empty({}, TensorOptions(dtype, options.device));
  if (t.device().is_meta()) return t;
  unsigned char bytes[8];
  if (value.is_floating()) {
    store_double(bytes, dtype, value.to_double());
  } else {
    store_int(bytes, dtype, value.to_int());
  }
  plugin::copy_from_host(t.device(), t.data_ptr(), bytes, itemsize(dtype));
  return t;
}

template <typename T>
Tensor tensor(const std::vector<T>& values, IntArrayRef shape, TensorOptions options) {
  if (numel_of(shape) != static_cast<int64_t>(values.size())) {
    throw_error(ErrorKind::Value,
                "tensor: " + std::to_string(values.size()) + " values do not fill shape " + shape_str(shape));
  }
  const DType natural = natural_dtype_of<T>();
  if (options.dtype && *options.dtype != natural) {
    for (const T& value : values) check_fits(Scalar(value), *options.dtype, "tensor");
  }
  Tensor t = empty(shape, TensorOptions(natural, options.device));
  if (!t.device().is_meta() && !values.empty()) {
    if constexpr (std::is_same_v<T, bool>) {
      const std::vector<uint8_t> bytes(values.begin(), values.end());
      plugin::copy_from_host(t.device(), t.data_ptr(), bytes.data(), bytes.size());
    } else {
      plugin::copy_from_host(t.device(), t.data_ptr(), values.data(), values.size() * sizeof(T));
    }
  }
  return options.dtype ? t.to(*options.dtype) : t;
}

template Tensor tensor<bool>(const std::vector<bool>&, IntArrayRef, TensorOptions);
template Tensor tensor<uint8_t>(const std::vector<uint8_t>&, IntArrayRef, TensorOptions);
template Tensor tensor<int8_t>(const std::vector<int8_t>&, IntArrayRef, TensorOptions);
template Tensor tensor<int16_t>(const std::vector<int16_t>&, IntArrayRef, TensorOptions);
template Tensor tensor<int32_t>(const std::vector<int32_t>&, IntArrayRef, TensorOptions);
template Tensor tensor<int64_t>(const std::vector<int64_t>&, IntArrayRef, TensorOptions);
template Tensor tensor<float>(const std::vector<float>&, IntArrayRef, TensorOptions);
template Tensor tensor<double>(const std::vector<double>&, IntArrayRef, TensorOptions);

void manual_seed(uint64_t seed) { random_stream::reset(seed); }

RandomState random_state() { return {random_stream::seed(), random_stream::position()}; }

void set_random_state(const RandomState& state) {
  random_stream::reset(state.seed);
  random_stream::rewind(state.offset);
}

uint64_t initial_seed() { return random_stream::seed(); }

Tensor& uniform_(Tensor& t, double low, double high) {
  if (!(low <= high)) {
    throw_error(ErrorKind::Runtime, "uniform_: expects low <= high, but got low=" + std::to_string(low) +
                                        " and high=" + std::to_string(high));
  }
  return random_fill(t, "uniform", "low", low, "high", high);
}

Tensor& normal_(Tensor& t, double mean, double std) {
  if (!(std >= 0.0))
    throw_error(ErrorKind::Runtime, "normal_: expects std >= 0.0, but found std " + std::to_string(std));
  return random_fill(t, "normal", "mean", mean, "std", std);
}

Tensor rand(IntArrayRef shape, TensorOptions options) {
  Tensor t = empty(shape, options);
  return uniform_(t, 0.0, 1.0);
}

Tensor randn(IntArrayRef shape, TensorOptions options) {
  Tensor t = empty(shape, options);
  return normal_(t, 0.0, 1.0);
}

}  // namespace ember
