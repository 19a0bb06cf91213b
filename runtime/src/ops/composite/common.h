// Helpers shared by the composite ops: argument checks with errors that
// name the op, and small building blocks made only of public ops.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "core/narrowing.h"
#include "core/shape.h"
#include "ember/autocast.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/functional.h"

namespace ember::composite {

inline std::string dtype_str(const Tensor& t) { return std::string(dtype_name(t.dtype())); }

inline void check_floating(std::string_view op, const Tensor& x) {
  if (!is_floating(x.dtype())) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected a floating point tensor, but got dtype " +
                                        dtype_str(x) + " with shape " + shape_str(x.sizes()));
  }
}

// Whether autograd records what is computed from x. Where it does not, a
// composite may take a form whose derivative differs from PyTorch's (a
// clamp splits ties its gradient gives to one side) or that writes in place.
inline bool recorded(const Tensor& x) { return x.requires_grad() && autograd::is_grad_enabled(); }

// Integer inputs become the default float dtype, as in the float-only
// primitives (exp, log, ...).
inline Tensor to_floating(const Tensor& x) { return is_floating(x.dtype()) ? x : x.to(default_float_dtype()); }

// A 0-d tensor holding `value` on x's device. Being 0-d, it takes part in
// type promotion like a Python number does next to a dimensioned tensor.
// Beside a floating x a float is held in the wider of x's dtype and the
// default float dtype, so that a float64 op sees it unrounded (a float32 0-d
// tensor would turn 1e300 into inf) and a 0-d x keeps its own dtype.
inline Tensor scalar_on(const Tensor& x, const Scalar& value) {
  if (value.is_floating() && is_floating(x.dtype())) {
    return scalar_tensor(value, TensorOptions(promote_types(x.dtype(), default_float_dtype()), x.device()));
  }
  return scalar_tensor(value, TensorOptions(x.device()));
}

// scalar_on(x, value), refused when x's dtype is the result's and cannot
// hold value (Note [Narrowing conversions]).
inline Tensor scalar_fitting(const Tensor& x, const Scalar& value, std::string_view op) {
  if (result_type(x, value) == x.dtype()) check_fits(value, x.dtype(), op);
  return scalar_on(x, value);
}

// A 0-d tensor of x's own dtype and device.
inline Tensor scalar_like(const Tensor& x, const Scalar& value) {
  return full({}, value, TensorOptions(x.dtype(), x.device()));
}

inline void check_rank(std::string_view op, const Tensor& x, int64_t min_rank, int64_t max_rank,
                       std::string_view what) {
  if (x.dim() < min_rank || x.dim() > max_rank) {
    throw_error(ErrorKind::Runtime, std::string(op) + "(): expected " + std::string(what) + " to have " +
                                        std::to_string(min_rank) +
                                        (min_rank == max_rank ? "" : " to " + std::to_string(max_rank)) +
                                        " dims, but got shape " + shape_str(x.sizes()));
  }
}

// Shape [1, C, 1, ...] of rank `rank`, so a per-channel tensor broadcasts
// against a [N, C, ...] one.
inline DimVector channel_shape(int64_t channels, int64_t rank, int64_t channel_dim = 1) {
  DimVector shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(channel_dim)] = channels;
  return shape;
}

// The arguments of an op on one of autocast's lists, as it computes with
// them (Note [Autocast]): while autocast is on, floats narrowed to the
// autocast dtype, or lower-precision floats widened to float32. A composite
// casts on entry, before it checks dtypes or picks a fused kernel by them.
template <class... Args>
auto in_lower_precision(const Args&... args) {
  return std::tuple{autocast::cast(args, autocast::CastPolicy::LowerPrecision)...};
}

template <class... Args>
auto in_float32(const Args&... args) {
  return std::tuple{autocast::cast(args, autocast::CastPolicy::Float32)...};
}

}  // namespace ember::composite
