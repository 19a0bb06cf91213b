#include "ember/dim_vector.h"

#include "ember/error.h"

namespace ember {
namespace {

void check_rank(size_t n) {
  if (n > static_cast<size_t>(kMaxDims)) {
    throw_error(ErrorKind::Value, "tensors have at most " + std::to_string(kMaxDims) +
                                      " dimensions, got " + std::to_string(n));
  }
}

}  // namespace

DimVector::DimVector(size_t n, int64_t value) { resize(n, value); }

DimVector::DimVector(IntArrayRef values) {
  check_rank(values.size());
  std::copy(values.begin(), values.end(), data_);
  size_ = static_cast<uint32_t>(values.size());
}

void DimVector::push_back(int64_t v) {
  check_rank(size_ + 1);
  data_[size_++] = v;
}

void DimVector::insert(size_t pos, int64_t v) {
  check_rank(size_ + 1);
  std::copy_backward(data_ + pos, data_ + size_, data_ + size_ + 1);
  data_[pos] = v;
  ++size_;
}

void DimVector::erase(size_t pos) {
  std::copy(data_ + pos + 1, data_ + size_, data_ + pos);
  --size_;
}

void DimVector::resize(size_t n, int64_t value) {
  check_rank(n);
  for (size_t i = size_; i < n; ++i) data_[i] = value;
  size_ = static_cast<uint32_t>(n);
}

std::string shape_str(IntArrayRef shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace ember
