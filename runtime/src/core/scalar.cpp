#include "ember/scalar.h"

#include <cmath>
#include <sstream>

namespace ember {

DType Scalar::natural_dtype() const {
  switch (kind_) {
    case Kind::Bool:
      return DType::Bool;
    case Kind::Int:
      return DType::Int64;
    case Kind::Float:
      break;
  }
  return default_float_dtype();
}

std::string Scalar::str() const {
  switch (kind_) {
    case Kind::Bool:
      return int_ ? "True" : "False";
    case Kind::Int:
      return std::to_string(int_);
    case Kind::Float:
      break;
  }
  std::ostringstream os;
  os.precision(17);
  os << float_;
  return os.str();
}

}  // namespace ember
