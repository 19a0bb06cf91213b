#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// Creation options, like PyTorch's dtype=/device= keywords.
struct TensorOptions {
  std::optional<DType> dtype;
  Device device = Device(kCpuDeviceType, 0);

  TensorOptions() = default;
  TensorOptions(DType d) : dtype(d) {}                   // NOLINT
  TensorOptions(Device dev) : device(dev) {}             // NOLINT
  // Only a string literal ("cuda:1"): a literal 0 must not read as a device.
  template <size_t N>
  TensorOptions(const char (&dev)[N]) : device(dev) {}   // NOLINT
  TensorOptions(DType d, Device dev) : dtype(d), device(dev) {}
};

// --- factories
Tensor empty(IntArrayRef shape, TensorOptions options = {});
Tensor empty_strided(IntArrayRef shape, IntArrayRef strides, TensorOptions options = {});
Tensor full(IntArrayRef shape, const Scalar& value, TensorOptions options = {});
Tensor zeros(IntArrayRef shape, TensorOptions options = {});
Tensor ones(IntArrayRef shape, TensorOptions options = {});
Tensor empty_like(const Tensor& t);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, const Scalar& value);
// [start, end) in steps of step; the dtype is int64 when all three are
// integers, else the default float dtype (PyTorch's rule).
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              TensorOptions options = {});
// A tensor with the given values (row-major) and shape, from host memory.
template <typename T>
Tensor tensor(const std::vector<T>& values, IntArrayRef shape, TensorOptions options = {});
template <typename T>
Tensor tensor(const std::vector<T>& values, TensorOptions options = {}) {
  const int64_t n = static_cast<int64_t>(values.size());
  return tensor<T>(values, IntArrayRef(&n, 1), options);
}
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});

// --- random numbers: one global generator (Philox, counter based), so a
// seed gives the same numbers on every device.
void manual_seed(uint64_t seed);
Tensor rand(IntArrayRef shape, TensorOptions options = {});
Tensor randn(IntArrayRef shape, TensorOptions options = {});
Tensor& uniform_(Tensor& t, double low = 0.0, double high = 1.0);
Tensor& normal_(Tensor& t, double mean = 0.0, double std = 1.0);

// --- elementwise unary
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor erf(const Tensor& x);
Tensor erfc(const Tensor& x);
Tensor erfinv(const Tensor& x);
Tensor asin(const Tensor& x);
Tensor acos(const Tensor& x);
Tensor atan(const Tensor& x);
Tensor lgamma(const Tensor& x);
Tensor digamma(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
Tensor trunc(const Tensor& x);
Tensor logical_not(const Tensor& x);
Tensor bitwise_not(const Tensor& x);

// --- elementwise binary, with broadcasting and type promotion
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// atan2(a, b) is the angle of the point (b, a); integers promote to the
// default float dtype.
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
// With a Python-like scalar on either side (weak promotion).
Tensor add(const Tensor& a, const Scalar& b);
Tensor sub(const Tensor& a, const Scalar& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Scalar& b);
Tensor pow(const Tensor& a, const Scalar& b);
Tensor eq(const Tensor& a, const Scalar& b);
Tensor ne(const Tensor& a, const Scalar& b);
Tensor lt(const Tensor& a, const Scalar& b);
Tensor le(const Tensor& a, const Scalar& b);
Tensor gt(const Tensor& a, const Scalar& b);
Tensor ge(const Tensor& a, const Scalar& b);
// In place: the result is cast to a's dtype, which must be able to hold it
// (float into int is an error, as in PyTorch).
Tensor& add_(Tensor& a, const Tensor& b);
Tensor& sub_(Tensor& a, const Tensor& b);
Tensor& mul_(Tensor& a, const Tensor& b);
Tensor& div_(Tensor& a, const Tensor& b);
// x.op_() for an op with no in-place form of its own: computes op on x (and
// `operands`, the op's other tensor arguments) and stores the result into x
// through copy_, which autograd records; when the call is recorded, op reads
// a copy of x, so what it saves for backward is not the overwritten x. The
// result must have x's shape, and a dtype x can hold.
Tensor& apply_inplace(Tensor& x, const std::function<Tensor(const Tensor&)>& op, std::string_view name,
                      std::initializer_list<Tensor> operands = {});

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);

// --- reductions; empty `dims` means every dimension
Tensor sum(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt);
Tensor prod(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amax(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, IntArrayRef dims = {}, bool keepdim = false);
// Without a dim, the index into the flattened tensor.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
struct ValuesIndices {
  Tensor values;
  Tensor indices;
};
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim = false);
ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);

// --- matrix products
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);

// --- indexing and joining
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);

// --- type promotion (Note [Type promotion])
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, const Scalar& b);

}  // namespace ember
