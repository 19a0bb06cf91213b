#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <ember/ember.h>

#include "expect_error.h"

namespace {

using ember::testing::expect_error;

using ember::DType;
using ember::ErrorKind;
using ember::Tensor;
using ::testing::HasSubstr;
using Shape = std::vector<int64_t>;
using I64 = std::vector<int64_t>;

void expect_doubles(const Tensor& t, const std::vector<double>& want, double tol = 1e-6) {
  const std::vector<double> got = t.tolist<double>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

template <typename T>
void expect_round_trip(const std::vector<T>& values, DType dtype) {
  Tensor t = ember::tensor<T>(values);
  EXPECT_EQ(t.dtype(), dtype);
  EXPECT_EQ(t.tolist<T>(), values);
}

TEST(Factories, ZerosOnesFull) {
  Tensor z = ember::zeros({2, 3});
  EXPECT_EQ(z.dtype(), DType::Float32);
  EXPECT_EQ(z.sizes().vec(), (Shape{2, 3}));
  EXPECT_TRUE(z.is_contiguous());
  expect_doubles(z, std::vector<double>(6, 0.0));
  Tensor o = ember::ones({4}, DType::Int32);
  EXPECT_EQ(o.tolist<int32_t>(), (std::vector<int32_t>{1, 1, 1, 1}));
  Tensor fi = ember::full({2, 2}, 7);
  EXPECT_EQ(fi.dtype(), DType::Int64);
  EXPECT_EQ(fi.tolist<int64_t>(), (I64{7, 7, 7, 7}));
  Tensor ff = ember::full({3}, 2.5);
  EXPECT_EQ(ff.dtype(), DType::Float32);
  expect_doubles(ff, {2.5, 2.5, 2.5});
  EXPECT_EQ(ember::full({2}, true).dtype(), DType::Bool);
  expect_doubles(ember::full({2}, -1.5, DType::Float64), {-1.5, -1.5});
  EXPECT_EQ(ember::zeros({}).dim(), 0);
  EXPECT_EQ(ember::zeros({0, 4}).numel(), 0);
  expect_error([] { ember::zeros({2, -1}); }, ErrorKind::Runtime, "negative dimension");
}

TEST(Factories, Arange) {
  Tensor a = ember::arange(5);
  EXPECT_EQ(a.dtype(), DType::Int64);
  EXPECT_EQ(a.tolist<int64_t>(), (I64{0, 1, 2, 3, 4}));
  EXPECT_EQ(ember::arange(2, 11, 3).tolist<int64_t>(), (I64{2, 5, 8}));
  EXPECT_EQ(ember::arange(5, 0, -2).tolist<int64_t>(), (I64{5, 3, 1}));
  EXPECT_EQ(ember::arange(-3, 0).tolist<int64_t>(), (I64{-3, -2, -1}));
  Tensor f = ember::arange(0.0, 1.0, 0.25);
  EXPECT_EQ(f.dtype(), DType::Float32);
  expect_doubles(f, {0, 0.25, 0.5, 0.75});
  expect_doubles(ember::arange(1.0, 0.0, -0.3), {1.0, 0.7, 0.4, 0.1});
  expect_doubles(ember::arange(0, 3, 1, DType::Float64), {0, 1, 2}, 0);
  Tensor empty = ember::arange(3, 3);
  EXPECT_EQ(empty.sizes().vec(), (Shape{0}));
  EXPECT_EQ(ember::arange(0.5, 0.5, 0.1).numel(), 0);
  expect_error([] { ember::arange(0, 5, 0); }, ErrorKind::Runtime, "step must be nonzero");
  expect_error([] { ember::arange(0, 5, -1); }, ErrorKind::Runtime, "step sign");
}

TEST(Factories, TensorRoundTrip) {
  expect_round_trip<bool>({true, false, true}, DType::Bool);
  expect_round_trip<uint8_t>({0, 200, 255}, DType::UInt8);
  expect_round_trip<int8_t>({-128, 0, 127}, DType::Int8);
  expect_round_trip<int16_t>({-30000, 1, 30000}, DType::Int16);
  expect_round_trip<int32_t>({std::numeric_limits<int32_t>::min(), 0, 7}, DType::Int32);
  expect_round_trip<int64_t>({int64_t{1} << 40, -5}, DType::Int64);
  expect_round_trip<float>({0.1f, -2.5f, 1e30f}, DType::Float32);
  expect_round_trip<double>({0.1, -1e300, 3.0}, DType::Float64);
  Tensor m = ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(m.sizes().vec(), (Shape{2, 3}));
  EXPECT_EQ(m.tolist<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  Tensor as64 = ember::tensor<int32_t>({1, 2}, {2}, DType::Int64);
  EXPECT_EQ(as64.dtype(), DType::Int64);
  expect_error([] { ember::tensor<float>({1, 2, 3}, {2, 2}); }, ErrorKind::Value, "[2, 2]");
}

TEST(Factories, DtypeConversions) {
  Tensor f = ember::tensor<float>({2.7f, -2.7f, 0.5f, -0.5f, 100.f});
  Tensor i = f.to(DType::Int32);
  EXPECT_EQ(i.dtype(), DType::Int32);
  EXPECT_EQ(i.tolist<int32_t>(), (std::vector<int32_t>{2, -2, 0, 0, 100}));
  EXPECT_EQ(f.to(DType::Int8).tolist<int8_t>(), (std::vector<int8_t>{2, -2, 0, 0, 100}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor b = ember::tensor<float>({0.f, 0.1f, -2.f, nan, -0.f}).to(DType::Bool);
  EXPECT_EQ(b.tolist<bool>(), (std::vector<bool>{false, true, true, true, false}));
  EXPECT_EQ(ember::tensor<int32_t>({0, 5, -1}).to(DType::Bool).tolist<bool>(), (std::vector<bool>{false, true, true}));
  expect_doubles(ember::tensor<bool>({true, false}).to(DType::Float32), {1, 0}, 0);
  EXPECT_EQ(ember::tensor<bool>({true, false}).to(DType::Int64).tolist<int64_t>(), (I64{1, 0}));
  Tensor third = ember::full({1}, 1.0 / 3.0, DType::Float32);
  EXPECT_FLOAT_EQ(third.to(DType::Float16).item<float>(), 0.333251953125f);
  EXPECT_FLOAT_EQ(third.to(DType::BFloat16).item<float>(), 0.333984375f);
  EXPECT_FLOAT_EQ(third.to(DType::Float16).to(DType::Float32).item<float>(), 0.333251953125f);
  EXPECT_DOUBLE_EQ(ember::tensor<double>({1.0 / 3.0}).to(DType::Float16).item<double>(), 0.333251953125);
  EXPECT_EQ(ember::tensor<float>({65536.f}).to(DType::Float16).item<float>(), std::numeric_limits<float>::infinity());
  Tensor same = f.to(DType::Float32);
  EXPECT_EQ(same.tolist<float>(), f.tolist<float>());
}

TEST(Factories, CloneAndContiguousOfTranspose) {
  Tensor m = ember::tensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor t = m.t();
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.sizes().vec(), (Shape{3, 2}));
  EXPECT_EQ(c.tolist<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_FALSE(c.is_alias_of(m));
  Tensor k = t.clone();
  EXPECT_FALSE(k.is_alias_of(m));
  EXPECT_EQ(k.tolist<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  m.fill_(0.0);
  EXPECT_EQ(c.tolist<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(k.tolist<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  Tensor already = ember::ones({2, 2});
  EXPECT_TRUE(already.contiguous().is_alias_of(already));
}

TEST(Factories, CopyWithBroadcasting) {
  Tensor dst = ember::zeros({2, 3});
  const uint32_t v0 = dst.version();
  dst.copy_(ember::tensor<float>({1, 2, 3}));
  EXPECT_GT(dst.version(), v0);
  EXPECT_EQ(dst.tolist<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  dst.copy_(ember::tensor<double>({-1.5, 9.25}, {2, 1}));
  EXPECT_EQ(dst.tolist<float>(), (std::vector<float>{-1.5f, -1.5f, -1.5f, 9.25f, 9.25f, 9.25f}));
  Tensor ints = ember::zeros({3}, DType::Int32);
  ints.copy_(ember::tensor<float>({1.9f, -1.9f, 3.f}));
  EXPECT_EQ(ints.tolist<int32_t>(), (std::vector<int32_t>{1, -1, 3}));
  Tensor col = ember::zeros({3, 2}).t();
  col.copy_(ember::tensor<float>({1, 2, 3}));
  EXPECT_EQ(col.contiguous().tolist<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_THROW(ember::zeros({2}).copy_(ember::zeros({3})), ember::Error);
}

TEST(Factories, Item) {
  Tensor f = ember::tensor<float>({2.5f});
  EXPECT_FLOAT_EQ(f.item<float>(), 2.5f);
  ember::Scalar s = f.item();
  EXPECT_TRUE(s.is_floating());
  EXPECT_DOUBLE_EQ(s.to_double(), 2.5);
  ember::Scalar si = ember::scalar_tensor(int64_t{-7}).item();
  EXPECT_TRUE(si.is_integral());
  EXPECT_EQ(si.to_int(), -7);
  EXPECT_TRUE(ember::scalar_tensor(true).item().is_bool());
  EXPECT_EQ(ember::tensor<int32_t>({1, 2, 3, 4}, {2, 2}).select(1, 1).select(0, 1).item<int32_t>(), 4);
  EXPECT_THROW(ember::zeros({2}).item<float>(), ember::Error);
}

TEST(Random, SeedReproducibleAndInRange) {
  ember::manual_seed(42);
  Tensor a = ember::rand({1000});
  Tensor a2 = ember::rand({1000});
  ember::manual_seed(42);
  Tensor b = ember::rand({1000});
  EXPECT_EQ(a.dtype(), DType::Float32);
  EXPECT_EQ(a.tolist<float>(), b.tolist<float>());
  EXPECT_NE(a.tolist<float>(), a2.tolist<float>());
  for (float v : a.tolist<float>()) {
    ASSERT_GE(v, 0.f);
    ASSERT_LT(v, 1.f);
  }
  ember::manual_seed(43);
  EXPECT_NE(ember::rand({1000}).tolist<float>(), b.tolist<float>());
  ember::manual_seed(7);
  Tensor n1 = ember::randn({64}, DType::Float64);
  ember::manual_seed(7);
  EXPECT_EQ(ember::randn({64}, DType::Float64).tolist<double>(), n1.tolist<double>());
}

TEST(Random, NormalMoments) {
  ember::manual_seed(123);
  const std::vector<double> v = ember::randn({100000}).tolist<double>();
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  const double mean = sum / v.size();
  for (double x : v) sq += (x - mean) * (x - mean);
  const double stddev = std::sqrt(sq / (v.size() - 1));
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(stddev, 1.0, 0.02);
  Tensor u = ember::empty({100000});
  ember::uniform_(u, -2.0, 2.0);
  EXPECT_NEAR(ember::mean(u).item<float>(), 0.0, 0.02);
  EXPECT_GE(ember::amin(u).item<float>(), -2.f);
  EXPECT_LT(ember::amax(u).item<float>(), 2.f);
}

TEST(Random, IntegerTensorIsNotImplemented) {
  Tensor t = ember::zeros({4}, DType::Int32);
  expect_error([&] { ember::uniform_(t); }, ErrorKind::NotImplemented, "int32");
  expect_error([&] { ember::normal_(t); }, ErrorKind::NotImplemented, "int32");
  expect_error([] { ember::rand({2}, DType::Int64); }, ErrorKind::NotImplemented, "int64");
}

TEST(Memory, AllocatedAndCacheHits) {
  const ember::Device cpu("cpu");
  const int64_t n = 12347;
  const ember::MemoryStats s0 = ember::memory_stats(cpu);
  {
    Tensor t = ember::empty({n});
    const ember::MemoryStats s1 = ember::memory_stats(cpu);
    EXPECT_GE(s1.allocated, s0.allocated + n * sizeof(float));
    EXPECT_GE(s1.reserved, s1.allocated);
    EXPECT_GE(s1.peak_allocated, s1.allocated);
    EXPECT_GT(s1.num_allocs, s0.num_allocs);
  }
  const ember::MemoryStats s2 = ember::memory_stats(cpu);
  EXPECT_EQ(s2.allocated, s0.allocated);
  Tensor again = ember::empty({n});
  const ember::MemoryStats s3 = ember::memory_stats(cpu);
  EXPECT_GT(s3.num_cache_hits, s2.num_cache_hits);
  EXPECT_EQ(s3.num_device_allocs, s2.num_device_allocs);
  EXPECT_GE(s3.allocated, s2.allocated + n * sizeof(float));
}

}  // namespace
