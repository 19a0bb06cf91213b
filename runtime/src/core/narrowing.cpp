#include "core/narrowing.h"

#include <cmath>
#include <limits>
#include <string>

#include "ember/error.h"

namespace ember {
namespace {

// The range of an integer dtype.
struct IntegerRange {
  int64_t lowest;
  int64_t highest;
};

IntegerRange integer_range(DType dtype) {
  switch (dtype) {
    case DType::UInt8:
      return {0, 255};
    case DType::Int8:
      return {-128, 127};
    case DType::Int16:
      return {-32768, 32767};
    case DType::Int32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

bool int_fits(int64_t v, DType dtype) {
  const IntegerRange range = integer_range(dtype);
  // Negative values wrap into an unsigned type whose range holds their magnitude.
  if (range.lowest == 0 && v < 0) return v >= -range.highest;
  return v >= range.lowest && v <= range.highest;
}

bool float_fits(double v, DType dtype) {
  if (std::isnan(v)) return false;
  const IntegerRange range = integer_range(dtype);
  // 2^63 itself is past int64's largest value, though the double compares equal to it.
  if (dtype == DType::Int64) return v >= -0x1p63 && v < 0x1p63;
  return v >= static_cast<double>(range.lowest) && v <= static_cast<double>(range.highest);
}

}  // namespace

bool fits_in(const Scalar& value, DType dtype) {
  if (dtype == DType::Bool || is_floating(dtype) || value.is_bool()) return true;
  return value.is_floating() ? float_fits(value.to_double(), dtype) : int_fits(value.to_int(), dtype);
}

void check_fits(const Scalar& value, DType dtype, std::string_view op) {
  if (!fits_in(value, dtype)) {
    throw_error(ErrorKind::Runtime, std::string(op) + ": value " + value.str() + " cannot be converted to type " +
                                        std::string(dtype_name(dtype)) + " without overflow");
  }
}

void check_inplace_result_type(DType result, DType output, std::string_view op) {
  if ((is_floating(result) && !is_floating(output)) || (result != DType::Bool && output == DType::Bool)) {
    throw_error(ErrorKind::Runtime, std::string(op) + ": result type " + std::string(dtype_name(result)) +
                                        " can't be cast to the desired output type " + std::string(dtype_name(output)));
  }
}

}  // namespace ember
