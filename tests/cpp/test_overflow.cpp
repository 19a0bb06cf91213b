// Sizes, strides and offsets whose products or sums pass int64 are refused
// (Note [Checked size arithmetic]) instead of wrapping into a small
// allocation or a view past its storage.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include <ember/ember.h>

#include "core/shape.h"
#include "expect_error.h"

namespace ember {
namespace {

using testing::expect_error;

constexpr int64_t kTwo31 = int64_t{1} << 31;
constexpr int64_t kTwo32 = int64_t{1} << 32;
constexpr int64_t kTwo61 = int64_t{1} << 61;
constexpr int64_t kTwo62 = int64_t{1} << 62;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

TEST(CheckedSizes, HelpersRefuseWhatDoesNotFit) {
  EXPECT_EQ(checked_mul(kTwo31, kTwo31), kTwo62);
  EXPECT_FALSE(checked_mul(kTwo32, kTwo32).has_value());
  EXPECT_FALSE(checked_add(kInt64Max, 1).has_value());
  EXPECT_EQ(numel_of({kTwo62, 4, 0}), 0);
  expect_error([] { numel_of({kTwo32, kTwo32}); }, ErrorKind::Runtime, "integer multiplication overflow");
  expect_error([] { contiguous_strides({0, kTwo62, 4}); }, ErrorKind::Runtime, "Stride calculation overflowed");
  EXPECT_EQ(contiguous_strides({kTwo61, 4}), DimVector({4, 1}));
  EXPECT_EQ(span_elements({3, 0}, {kInt64Max, 1}), 0);
  expect_error([] { span_elements({3}, {kTwo62 + 1}); }, ErrorKind::Runtime, "strides=[4611686018427387905]");
  EXPECT_EQ(storage_nbytes({kTwo61 - 1}, 4), (kTwo61 - 1) * 4);
  expect_error([] { storage_nbytes({kTwo61}, 4); }, ErrorKind::Runtime, "Storage size calculation overflowed");
  expect_error([] { storage_nbytes({2}, {kTwo62}, kTwo62, 1); }, ErrorKind::Runtime, "Storage size");
}

// Each of these wrapped to a tiny storage that kernels then wrote past.
TEST(CheckedSizes, FactoriesRefuseStoragesPastInt64Bytes) {
  const TensorOptions meta(DType::Float32, Device("meta"));
  expect_error([] { zeros({kTwo62}); }, ErrorKind::Runtime, "Storage size calculation overflowed");
  expect_error([] { rand({kTwo62}); }, ErrorKind::Runtime, "sizes=[4611686018427387904]");
  expect_error([] { empty({kTwo32, kTwo32}); }, ErrorKind::Runtime, "[4294967296, 4294967296]");
  expect_error([&] { empty({kTwo61}, meta); }, ErrorKind::Runtime, "Storage size calculation overflowed");
  expect_error([] { arange(0, kTwo61); }, ErrorKind::Runtime, "Storage size calculation overflowed");
  expect_error([] { arange(std::numeric_limits<int64_t>::min(), kInt64Max); }, ErrorKind::Runtime, "possible overflow");
  expect_error([] { arange(0.0, 1e300, 1.0); }, ErrorKind::Runtime, "possible overflow");
  expect_error([] { empty_strided({2}, {kTwo62}, TensorOptions(DType::Float32)); }, ErrorKind::Runtime,
               "strides=[4611686018427387904]");
  expect_error([] { empty_strided({2}, {-1}, TensorOptions(DType::Float32)); }, ErrorKind::Runtime, "negative strides");
  // Empty tensors stay fine however large their other sizes are.
  EXPECT_EQ(empty({kTwo31, kTwo31, 0}).numel(), 0);
  EXPECT_EQ(empty({kTwo61 - 1}, meta).numel(), kTwo61 - 1);
}

TEST(CheckedSizes, ViewsWhoseElementCountWrapsAreRefused) {
  const Tensor one = ones({1, 1});
  expect_error([&] { one.expand({kTwo32, kTwo32}); }, ErrorKind::Runtime, "integer multiplication overflow");
  const Tensor wide = ones({1}).expand({kTwo62});
  EXPECT_EQ(wide.view({-1}).numel(), kTwo62);
  expect_error([&] { wide.contiguous(); }, ErrorKind::Runtime, "Storage size calculation overflowed");
  expect_error([&] { wide.unsqueeze(0).expand({2, kTwo62}); }, ErrorKind::Runtime, "integer multiplication");
  expect_error([&] { cat({wide, wide}); }, ErrorKind::Runtime, "add up past");
  expect_error([] { empty({0}).view({kTwo62, kTwo62, 0}); }, ErrorKind::Runtime, "is invalid for input of size 0");
}

TEST(CheckedSizes, MatmulOutputPastInt64BytesIsRefused) {
  const Tensor a = empty({kTwo31, 0});
  const Tensor b = empty({0, kTwo31});
  expect_error([&] { mm(a, b); }, ErrorKind::Runtime, "sizes=[2147483648, 2147483648]");
}

TEST(CheckedBounds, AsStridedCannotReachPastItsStorage) {
  const Tensor x = arange(4, DType::Float32);
  expect_error([&] { x.as_strided({3}, {kTwo62 + 1}); }, ErrorKind::Runtime, "Storage size calculation");
  expect_error([&] { x.as_strided({3}, {kInt64Max}); }, ErrorKind::Runtime, "Storage size calculation");
  expect_error([&] { x.as_strided({3}, {kTwo62}, kTwo62); }, ErrorKind::Runtime, "Storage size calculation");
  expect_error([&] { x.as_strided({3}, {-1}); }, ErrorKind::Runtime, "negative sizes or strides");
  expect_error([&] { x.as_strided({2}, {1}, 3); }, ErrorKind::Runtime, "require a storage of 5 elements");
  EXPECT_EQ(x.as_strided({2}, {3}).tolist<float>(), (std::vector<float>{0, 3}));
  EXPECT_EQ(x.as_strided({1}, {kInt64Max}, 3).tolist<float>(), (std::vector<float>{3}));
}

TEST(CheckedBounds, NarrowSliceAndSelectWithHugeArguments) {
  const Tensor x = arange(6, DType::Float32).view({2, 3});
  expect_error([&] { x.narrow(1, 1, kInt64Max); }, ErrorKind::Runtime, "exceeds dimension size (3)");
  expect_error([&] { x.narrow(1, kInt64Max, 1); }, ErrorKind::Index, "start out of range");
  expect_error([&] { x.narrow(1, std::numeric_limits<int64_t>::min(), 1); }, ErrorKind::Index, "start out of range");
  expect_error([&] { x.narrow(1, 0, -1); }, ErrorKind::Runtime, "length must be non-negative");
  // One element is left, as Python's own slicing gives.
  const Tensor every_huge = x.slice(0, std::nullopt, std::nullopt, kInt64Max);
  EXPECT_EQ(every_huge.sizes(), DimVector({1, 3}));
  EXPECT_EQ(every_huge.tolist<float>(), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(x.slice(1, 1, std::nullopt, kInt64Max).tolist<float>(), (std::vector<float>{1, 4}));
  EXPECT_EQ(x.slice(0, kInt64Max, std::nullopt).numel(), 0);
  expect_error([&] { x.select(0, kInt64Max); }, ErrorKind::Index, "out of range");
  expect_error([&] { x.select(0, std::numeric_limits<int64_t>::min()); }, ErrorKind::Index, "out of range");
}

}  // namespace
}  // namespace ember
