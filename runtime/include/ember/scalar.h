#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "ember/dtype.h"

namespace ember {

// A host number that takes part in an op, as a Python int/float/bool does.
// Scalars are "weak" in type promotion (Note [Type promotion]): they pick the
// category (bool < integer < floating) but never the width, so
// int8_tensor + 1 stays int8 and float16_tensor * 2.5 stays float16.
class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };

  Scalar() : kind_(Kind::Int), int_(0) {}
  Scalar(bool v) : kind_(Kind::Bool), int_(v) {}  // NOLINT: implicit, like Python numbers
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), int_(static_cast<int64_t>(v)) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Float), float_(static_cast<double>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_bool() const { return kind_ == Kind::Bool; }

  double to_double() const { return kind_ == Kind::Float ? float_ : static_cast<double>(int_); }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(float_) : int_; }
  bool to_bool() const { return kind_ == Kind::Float ? float_ != 0.0 : int_ != 0; }

  // dtype of a tensor made from this scalar alone: bool, int64 or the
  // default float dtype.
  DType natural_dtype() const;
  std::string str() const;

 private:
  Kind kind_;
  union {
    int64_t int_;
    double float_;
  };
};

}  // namespace ember
