#include <gtest/gtest.h>

#include <ember/ember.h>

namespace ember {
namespace {

TEST(DType, ItemsizeAndNames) {
  EXPECT_EQ(itemsize(DType::Bool), 1u);
  EXPECT_EQ(itemsize(DType::BFloat16), 2u);
  EXPECT_EQ(itemsize(DType::Float64), 8u);
  EXPECT_EQ(dtype_name(DType::Int16), "int16");
  EXPECT_EQ(dtype_from_name("half"), DType::Float16);
  EXPECT_EQ(dtype_from_name("long"), DType::Int64);
  EXPECT_THROW(dtype_from_name("complex32"), Error);
}

TEST(DType, PromoteTypesFollowsPyTorch) {
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int8), DType::Int16);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Int64, DType::Float16), DType::Float16);
  EXPECT_EQ(promote_types(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(promote_types(DType::Bool, DType::Int8), DType::Int8);
  EXPECT_EQ(promote_types(DType::Float32, DType::Float64), DType::Float64);
  EXPECT_EQ(promote_types(DType::Int16, DType::Int32), DType::Int32);
  for (int i = 0; i < kNumDTypes; ++i) {
    for (int j = 0; j < kNumDTypes; ++j) {
      EXPECT_EQ(promote_types(DType(i), DType(j)), promote_types(DType(j), DType(i))) << i << " " << j;
    }
  }
}

TEST(DType, ResultTypeTiers) {
  const Tensor i8 = empty({3}, TensorOptions(DType::Int8, "meta"));
  const Tensor f16 = empty({3}, TensorOptions(DType::Float16, "meta"));
  const Tensor i64_0d = empty({}, TensorOptions(DType::Int64, "meta"));
  const Tensor f64_0d = empty({}, TensorOptions(DType::Float64, "meta"));
  const Tensor i32_0d = empty({}, TensorOptions(DType::Int32, "meta"));
  EXPECT_EQ(result_type(i8, i64_0d), DType::Int8);
  EXPECT_EQ(result_type(i8, f64_0d), DType::Float64);
  EXPECT_EQ(result_type(f16, f64_0d), DType::Float16);
  EXPECT_EQ(result_type(i8, Scalar(1)), DType::Int8);
  EXPECT_EQ(result_type(i8, Scalar(2.5)), DType::Float32);
  EXPECT_EQ(result_type(f16, Scalar(2.5)), DType::Float16);
  EXPECT_EQ(result_type(i32_0d, i64_0d), DType::Int64);
  EXPECT_EQ(result_type(empty({2}, TensorOptions(DType::Bool, "meta")), Scalar(3)), DType::Int64);
}

TEST(Scalar, KindsAndNaturalDtype) {
  EXPECT_EQ(Scalar(true).natural_dtype(), DType::Bool);
  EXPECT_EQ(Scalar(int64_t{3}).natural_dtype(), DType::Int64);
  EXPECT_EQ(Scalar(1.5).natural_dtype(), DType::Float32);
  EXPECT_EQ(Scalar(7).to_double(), 7.0);
  EXPECT_EQ(Scalar(2.75).to_int(), 2);
}

}  // namespace
}  // namespace ember
