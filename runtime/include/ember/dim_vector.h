#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace ember {

// At most this many dimensions; enough for every model we know of, and it
// keeps shapes inline in TensorImpl so that making a tensor costs no extra
// allocation on the per-op hot path.
inline constexpr int kMaxDims = 16;

// A borrowed view of int64 values (sizes, strides, dims). Unlike std::span it
// binds to a braced list, so `t.view({2, 3})` works; like any view it must
// not outlive what it points to.
class IntArrayRef {
 public:
  constexpr IntArrayRef() = default;
  constexpr IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  // The list lives until the end of the full expression, which covers the
  // intended use as a function argument.
  constexpr IntArrayRef(std::initializer_list<int64_t> values)  // NOLINT
      : data_(values.begin()), size_(values.size()) {}
#pragma GCC diagnostic pop
  IntArrayRef(const std::vector<int64_t>& values)  // NOLINT
      : data_(values.data()), size_(values.size()) {}
  template <size_t N>
  constexpr IntArrayRef(const int64_t (&values)[N]) : data_(values), size_(N) {}  // NOLINT

  constexpr const int64_t* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const int64_t* begin() const { return data_; }
  constexpr const int64_t* end() const { return data_ + size_; }
  constexpr int64_t operator[](size_t i) const { return data_[i]; }
  constexpr int64_t front() const { return data_[0]; }
  constexpr int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

// A fixed-capacity vector of sizes or strides.
class DimVector {
 public:
  DimVector() = default;
  // Copies move only the used entries: shapes are copied on every op call.
  DimVector(const DimVector& other) : size_(other.size_) { std::copy(other.begin(), other.end(), data_); }
  DimVector& operator=(const DimVector& other) {
    size_ = other.size_;
    std::copy(other.begin(), other.end(), data_);
    return *this;
  }
  explicit DimVector(size_t n, int64_t value = 0);
  DimVector(IntArrayRef values);  // NOLINT: implicit from any int64 range
  DimVector(std::initializer_list<int64_t> values)
      : DimVector(IntArrayRef(values.begin(), values.size())) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t& back() { return data_[size_ - 1]; }
  int64_t back() const { return data_[size_ - 1]; }

  void push_back(int64_t v);
  void insert(size_t pos, int64_t v);
  void erase(size_t pos);
  void resize(size_t n, int64_t value = 0);

  operator IntArrayRef() const { return {data_, size_}; }  // NOLINT
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  friend bool operator==(const DimVector& a, const DimVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  uint32_t size_ = 0;
  int64_t data_[kMaxDims];  // entries past size_ are never read
};

// "[2, 3]".
std::string shape_str(IntArrayRef shape);

}  // namespace ember
