#include "ember/dtype.h"

#include <array>
#include <atomic>
#include <string>

#include "ember/error.h"

namespace ember {
namespace {

constexpr std::array<std::string_view, kNumDTypes> kNames = {
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
};

std::atomic<DType> g_default_float{DType::Float32};

bool is_signed_integer(DType d) {
  return d == DType::Int8 || d == DType::Int16 || d == DType::Int32 || d == DType::Int64;
}

}  // namespace

std::string_view dtype_name(DType dtype) {
  const auto index = static_cast<size_t>(dtype);
  if (index >= kNames.size()) {
    throw_error(ErrorKind::Type, "unknown dtype value " + std::to_string(index));
  }
  return kNames[index];
}

DType dtype_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<DType>(i);
  }
  struct Alias {
    std::string_view alias;
    DType dtype;
  };
  static constexpr Alias kAliases[] = {
      {"float", DType::Float32}, {"double", DType::Float64}, {"half", DType::Float16},
      {"long", DType::Int64},    {"int", DType::Int32},      {"short", DType::Int16},
  };
  for (const auto& a : kAliases) {
    if (a.alias == name) return a.dtype;
  }
  throw_error(ErrorKind::Type, "unknown dtype '" + std::string(name) + "'");
}

bool is_floating(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16 || dtype == DType::Float32 ||
         dtype == DType::Float64;
}

bool is_integral(DType dtype, bool include_bool) {
  if (dtype == DType::Bool) return include_bool;
  return dtype == DType::UInt8 || is_signed_integer(dtype);
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  const bool fa = is_floating(a);
  const bool fb = is_floating(b);
  if (fa && fb) {
    const bool half_pair = (a == DType::Float16 && b == DType::BFloat16) ||
                           (a == DType::BFloat16 && b == DType::Float16);
    if (half_pair) return DType::Float32;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integers. uint8 is the only unsigned type: with int8 neither holds
  // the other's range, so the result widens to int16.
  if (a == DType::UInt8 || b == DType::UInt8) {
    const DType other = a == DType::UInt8 ? b : a;
    return other == DType::Int8 ? DType::Int16 : other;
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

DType default_float_dtype() { return g_default_float.load(std::memory_order_relaxed); }

void set_default_float_dtype(DType dtype) {
  if (!is_floating(dtype)) {
    throw_error(ErrorKind::Type, "default dtype must be floating point, got " +
                                     std::string(dtype_name(dtype)));
  }
  g_default_float.store(dtype, std::memory_order_relaxed);
}

}  // namespace ember
