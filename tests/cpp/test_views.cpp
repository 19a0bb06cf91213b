#include <gtest/gtest.h>

#include <ember/ember.h>

#include "expect_error.h"
#include "iota.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::iota;

TEST(Views, ShareStorageAndBumpVersionTogether) {
  Tensor a = iota({2, 3});
  Tensor v = a.view({3, 2});
  EXPECT_TRUE(v.is_alias_of(a));
  const uint32_t before = v.version();
  add_(a, ones({2, 3}));
  EXPECT_GT(v.version(), before);
  EXPECT_EQ(v.tolist<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Views, TransposePermuteAndContiguous) {
  Tensor a = iota({2, 3});
  Tensor t = a.t();
  EXPECT_EQ(t.sizes(), DimVector({3, 2}));
  EXPECT_EQ(t.strides(), DimVector({1, 3}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.tolist<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(c.is_alias_of(a));
  Tensor p = iota({2, 3, 4}).permute({2, 0, 1});
  EXPECT_EQ(p.sizes(), DimVector({4, 2, 3}));
  EXPECT_EQ(p.strides(), DimVector({1, 12, 4}));
  EXPECT_TRUE(a.contiguous().is_alias_of(a));
}

TEST(Views, ViewNeedsCompatibleStridesReshapeCopies) {
  Tensor t = iota({2, 3}).t();
  expect_error([&] { t.view({6}); }, ErrorKind::Runtime, "reshape");
  Tensor r = t.reshape({6});
  EXPECT_FALSE(r.is_alias_of(t));
  EXPECT_EQ(r.tolist<float>(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor ok = iota({2, 3, 4}).view({-1, 4});
  EXPECT_EQ(ok.sizes(), DimVector({6, 4}));
  expect_error([] { iota({2, 3}).view({4, -1}); }, ErrorKind::Runtime, "invalid for input of size 6");
  // Splitting a transposed dim is expressible without a copy.
  Tensor split = iota({4, 6}).t().view({2, 3, 4});
  EXPECT_EQ(split.strides(), DimVector({3, 1, 6}));
}

TEST(Views, ExpandSqueezeUnsqueeze) {
  Tensor a = iota({3, 1});
  Tensor e = a.expand({2, 3, 4});
  EXPECT_EQ(e.sizes(), DimVector({2, 3, 4}));
  EXPECT_EQ(e.strides(), DimVector({0, 1, 0}));
  EXPECT_EQ(e.contiguous().tolist<float>()[5], 1.0f);
  expect_error([&] { a.expand({2, 2}); }, ErrorKind::Runtime, "non-singleton dimension");
  EXPECT_EQ(a.squeeze().sizes(), DimVector({3}));
  EXPECT_EQ(a.unsqueeze(0).sizes(), DimVector({1, 3, 1}));
  EXPECT_EQ(a.unsqueeze(-1).sizes(), DimVector({3, 1, 1}));
  expect_error([&] { a.unsqueeze(5); }, ErrorKind::Index, "dimension out of range");
}

TEST(Views, SliceNarrowSelect) {
  Tensor a = iota({4, 5});
  Tensor s = a.slice(1, 1, std::nullopt, 2);
  EXPECT_EQ(s.sizes(), DimVector({4, 2}));
  EXPECT_EQ(s.tolist<float>(), (std::vector<float>{1, 3, 6, 8, 11, 13, 16, 18}));
  EXPECT_EQ(a.slice(0, -2, std::nullopt).tolist<float>()[0], 10.0f);
  EXPECT_EQ(a.slice(0, 3, 1).numel(), 0);
  EXPECT_EQ(a.narrow(1, 2, 2).tolist<float>(), (std::vector<float>{2, 3, 7, 8, 12, 13, 17, 18}));
  EXPECT_EQ(a.select(0, -1).tolist<float>(), (std::vector<float>{15, 16, 17, 18, 19}));
  expect_error([&] { a.select(0, 4); }, ErrorKind::Index, "out of range");
  expect_error([&] { a.narrow(1, 4, 2); }, ErrorKind::Runtime, "exceeds dimension size");
  expect_error([&] { scalar_tensor(1.0).slice(0, 0, 1); }, ErrorKind::Index, "0-dim");
}

TEST(Views, AsStridedChecksStorageBounds) {
  Tensor a = iota({6});
  Tensor w = a.as_strided({2, 2}, {1, 2}, 1);
  EXPECT_EQ(w.tolist<float>(), (std::vector<float>{1, 3, 2, 4}));
  expect_error([&] { a.as_strided({3, 3}, {3, 1}); }, ErrorKind::Runtime, "require a storage of 9 elements");
}

TEST(Views, FlattenAndZeroDim) {
  Tensor a = iota({2, 3, 4});
  EXPECT_EQ(a.flatten(1).sizes(), DimVector({2, 12}));
  Tensor z = scalar_tensor(3.5);
  EXPECT_EQ(z.dim(), 0);
  EXPECT_EQ(z.numel(), 1);
  EXPECT_EQ(z.flatten().sizes(), DimVector({1}));
  EXPECT_EQ(z.unsqueeze(0).sizes(), DimVector({1}));
  EXPECT_DOUBLE_EQ(z.item<double>(), 3.5);
}

}  // namespace
}  // namespace ember
