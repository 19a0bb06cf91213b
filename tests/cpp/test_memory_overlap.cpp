// In-place writes whose input shares memory with the output, or whose
// output has several elements at one address (Note [Memory overlap]), and
// index values outside [0, size) at the primitives.
#include <gtest/gtest.h>

#include <vector>

#include <ember/ember.h>
#include <ember/functional.h>

#include "expect_error.h"
#include "iota.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::iota;

Tensor longs(const std::vector<int64_t>& values) { return tensor<int64_t>(values); }

TEST(MemoryOverlap, DenseInputsOverlappingTheOutputAreRefused) {
  Tensor b = iota({3, 3});
  expect_error([&] { b.copy_(b.t()); }, ErrorKind::Runtime, "some elements of the input tensor and the written-to");
  expect_error([&] { b.slice(0, 1, std::nullopt).copy_(b.slice(0, 0, 2)); }, ErrorKind::Runtime, "clone()");
  expect_error([&] { add_(b, b.t()); }, ErrorKind::Runtime, "add_: unsupported operation");
  expect_error([&] { add_(b, b.select(0, 0)); }, ErrorKind::Runtime, "add_: unsupported operation");
  // Refused before anything was written.
  EXPECT_EQ(b.tolist<float>(), iota({3, 3}).tolist<float>());
  // The same view, and disjoint parts of one storage, are fine.
  b.copy_(b);
  mul_(b, b);
  b.select(0, 0).copy_(b.select(0, 1));
  EXPECT_EQ(b.tolist<float>(), (std::vector<float>{9, 16, 25, 9, 16, 25, 36, 49, 64}));
}

// Strided views that interleave in memory read from a copy of the input, so
// the result is the out-of-place one rather than depending on write order.
TEST(MemoryOverlap, InterleavedInputsAreReadFromACopy) {
  Tensor x = iota({3, 3});
  x.slice(1, 1, std::nullopt).copy_(x.slice(1, 0, 2));
  EXPECT_EQ(x.tolist<float>(), (std::vector<float>{0, 0, 1, 3, 3, 4, 6, 6, 7}));
  Tensor y = iota({3, 3});
  add_(y, y.slice(1, 0, 1));
  EXPECT_EQ(y.tolist<float>(), (std::vector<float>{0, 1, 2, 6, 7, 8, 12, 13, 14}));
}

TEST(MemoryOverlap, WritesIntoExpandedTensorsAreRefused) {
  Tensor e = ones({1}).expand({3});
  const char* message = "more than one element of the written-to tensor";
  expect_error([&] { e.copy_(iota({3})); }, ErrorKind::Runtime, message);
  expect_error([&] { add_(e, ones({3})); }, ErrorKind::Runtime, message);
  expect_error([&] { uniform_(e); }, ErrorKind::Runtime, message);
  expect_error([&] { index_put_(e, {longs({0, 1})}, iota({2})); }, ErrorKind::Runtime, "index_put_: unsupported");
  EXPECT_EQ(e.tolist<float>(), (std::vector<float>{1, 1, 1}));
  // A single element of it, and a fill (one value everywhere), are fine as in PyTorch.
  Tensor first = e.select(0, 0);
  first.copy_(full({}, 5.0));
  e.fill_(2.0);
  EXPECT_EQ(e.tolist<float>(), (std::vector<float>{2, 2, 2}));
  // An empty expanded tensor has nothing to write twice.
  Tensor none = ones({1, 0}).expand({3, 0});
  none.copy_(empty({3, 0}));
}

TEST(IndexValues, NegativeIndicesAreOutOfRangeAtThePrimitives) {
  const Tensor x = iota({2, 3});
  expect_error([&] { index_select(x, 1, longs({-1})); }, ErrorKind::Index, "index -1 is out of range");
  expect_error([&] { embedding(x, longs({-1})); }, ErrorKind::Index, "index -1 is out of range");
  expect_error([&] { gather(x, 1, tensor<int64_t>({-1}, {1, 1})); }, ErrorKind::Runtime, "index -1");
  expect_error([&] { scatter_add(x, 1, tensor<int64_t>({-1}, {1, 1}), ones({1, 1})); }, ErrorKind::Runtime, "index -1");
  // Advanced indexing keeps counting negative indices from the end.
  EXPECT_EQ(index(x, {std::nullopt, longs({-1})}).tolist<float>(), (std::vector<float>{2, 5}));
}

}  // namespace
}  // namespace ember
