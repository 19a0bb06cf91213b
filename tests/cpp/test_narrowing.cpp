// Values and results that do not fit where they are stored are refused
// (Note [Narrowing conversions]).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <ember/ember.h>
#include <ember/functional.h>

#include "core/narrowing.h"
#include "expect_error.h"

namespace ember {
namespace {

using testing::expect_error;

TEST(Narrowing, FitsFollowsPyTorchsOverflowRule) {
  EXPECT_TRUE(fits_in(Scalar(255), DType::UInt8));
  EXPECT_TRUE(fits_in(Scalar(-255), DType::UInt8));  // wraps, as PyTorch allows
  EXPECT_FALSE(fits_in(Scalar(-256), DType::UInt8));
  EXPECT_FALSE(fits_in(Scalar(300), DType::UInt8));
  EXPECT_FALSE(fits_in(Scalar(-1.0), DType::UInt8));
  EXPECT_TRUE(fits_in(Scalar(1.5), DType::UInt8));
  EXPECT_FALSE(fits_in(Scalar(128), DType::Int8));
  EXPECT_FALSE(fits_in(Scalar(int64_t{1} << 31), DType::Int32));
  EXPECT_FALSE(fits_in(Scalar(std::nan("")), DType::Int64));
  EXPECT_FALSE(fits_in(Scalar(0x1p63), DType::Int64));
  EXPECT_TRUE(fits_in(Scalar(1e300), DType::Float16));
  EXPECT_TRUE(fits_in(Scalar(2), DType::Bool));
}

TEST(Narrowing, ValuesWrittenIntoTensorsMustFit) {
  expect_error([] { tensor<int64_t>({300}, {1}, TensorOptions(DType::UInt8)); }, ErrorKind::Runtime,
               "value 300 cannot be converted to type uint8");
  expect_error([] { tensor<double>({std::nan("")}, {1}, TensorOptions(DType::Int64)); }, ErrorKind::Runtime,
               "cannot be converted to type int64");
  expect_error([] { full({2}, 300, TensorOptions(DType::UInt8)); }, ErrorKind::Runtime, "uint8 without overflow");
  const Tensor small = arange(4, DType::Int8);
  expect_error([&] { clamp(small, std::nullopt, Scalar(1000)); }, ErrorKind::Runtime, "clamp: value 1000");
  expect_error([&] { where(ge(small, 2), small, Scalar(200)); }, ErrorKind::Runtime, "where: value 200");
  EXPECT_EQ(tensor<int64_t>({-1}, {1}, TensorOptions(DType::UInt8)).tolist<int64_t>(), (std::vector<int64_t>{255}));
  EXPECT_EQ(clamp(small, std::nullopt, Scalar(2)).tolist<int64_t>(), (std::vector<int64_t>{0, 1, 2, 2}));
  // A float bound makes a float result, which holds it.
  EXPECT_EQ(clamp(small, std::nullopt, Scalar(1.5)).dtype(), default_float_dtype());
}

TEST(Narrowing, InPlaceResultsMustFitTheOutputDtype) {
  Tensor ints = tensor<int64_t>({1, 2});
  expect_error([&] { div_(ints, ones({2})); }, ErrorKind::Runtime,
               "div_: result type float32 can't be cast to the desired output type int64");
  Tensor flags = tensor<bool>({true, false});
  expect_error([&] { add_(flags, tensor<int64_t>({1, 1})); }, ErrorKind::Runtime, "output type bool");
  EXPECT_EQ(ints.tolist<int64_t>(), (std::vector<int64_t>{1, 2}));
  expect_error([] { check_inplace_result_type(DType::Float32, DType::Int64, "sqrt_"); }, ErrorKind::Runtime,
               "sqrt_: result type float32");
  check_inplace_result_type(DType::Int64, DType::Float16, "add_");
  check_inplace_result_type(DType::Bool, DType::UInt8, "logical_not_");
}

}  // namespace
}  // namespace ember
