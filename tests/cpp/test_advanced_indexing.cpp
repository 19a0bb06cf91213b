// Advanced indexing (index, index_put, nonzero) against values printed by
// PyTorch 2.13 for the same inputs, plus gradients and the error cases.
#include <gtest/gtest.h>

#include <ember/autograd.h>
#include <ember/ember.h>

#include "expect_error.h"
#include "functional_test_util.h"

namespace ember {
namespace {

using testing::expect_close;
using testing::expect_error;

Tensor arange_cube() { return arange(24, TensorOptions(DType::Float32)).reshape({2, 3, 4}); }
Tensor longs(std::vector<int64_t> v, std::vector<int64_t> shape) { return tensor<int64_t>(v, shape); }

TEST(AdvancedIndexing, OneIndexTensorKeepsItsPlace) {
  // x[:, [2, 0]]
  expect_close(index(arange_cube(), {std::nullopt, longs({2, 0}, {2})}), {2, 2, 4},
               {8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15});
}

TEST(AdvancedIndexing, SeparatedIndicesGoFirstAndBroadcast) {
  // x[[1, 0], :, [[3], [1]]]
  expect_close(index(arange_cube(), {longs({1, 0}, {2}), std::nullopt, longs({3, 1}, {2, 1})}), {2, 2, 3},
               {15, 19, 23, 3, 7, 11, 13, 17, 21, 1, 5, 9});
}

TEST(AdvancedIndexing, AdjacentIndicesWithNegativeValues) {
  // x[:, [0, -1], [1, 2]]
  expect_close(index(arange_cube(), {std::nullopt, longs({0, -1}, {2}), longs({1, 2}, {2})}), {2, 2},
               {1, 10, 13, 22});
}

TEST(AdvancedIndexing, BoolMaskSelectsTrueElementsInOrder) {
  const Tensor x = arange_cube();
  const Tensor mask = gt(x.select(0, 0), 5.0);
  expect_close(index(x.select(0, 0), {mask}), {6}, {6, 7, 8, 9, 10, 11});
  EXPECT_EQ(index(x, {std::nullopt, mask}).sizes().vec(), (std::vector<int64_t>{2, 6}));
}

TEST(AdvancedIndexing, Nonzero) {
  const Tensor coords = nonzero(tensor<int32_t>({0, 1, 0, 2, 0, 3}, {2, 3}));
  EXPECT_EQ(coords.dtype(), DType::Int64);
  expect_close(coords, {3, 2}, {0, 1, 1, 0, 1, 2});
  EXPECT_EQ(nonzero(zeros({0, 3})).sizes().vec(), (std::vector<int64_t>{0, 2}));
}

TEST(AdvancedIndexing, IndexPutAccumulateSumsRepeats) {
  Tensor y = zeros({5});
  index_put_(y, {longs({1, 3, 1}, {3})}, tensor<float>({1, 2, 3}), /*accumulate=*/true);
  expect_close(y, {5}, {0, 4, 0, 2, 0});
}

TEST(AdvancedIndexing, IndexPutLastWriteWins) {
  Tensor y = zeros({5});
  index_put_(y, {longs({1, 3, 1}, {3})}, tensor<float>({1, 2, 3}));
  expect_close(y, {5}, {0, 3, 0, 2, 0});
}

TEST(AdvancedIndexing, IndexPutBroadcastsValuesOverTheResult) {
  // z[:, [0, 2], [1, 3]] = [5, 6]
  Tensor z = zeros({2, 3, 4});
  index_put_(z, {std::nullopt, longs({0, 2}, {2}), longs({1, 3}, {2})}, tensor<float>({5, 6}));
  std::vector<double> want(24, 0.0);
  want[1] = 5, want[11] = 6, want[13] = 5, want[23] = 6;
  expect_close(z, {2, 3, 4}, want);
}

TEST(AdvancedIndexing, GradientsFlowToSourceAndValues) {
  const Tensor x = arange_cube().to(DType::Float64).requires_grad_();
  const Tensor v = tensor<double>({1, 2}).requires_grad_();
  const Tensor picked = index(x, {std::nullopt, longs({2, 2}, {2})});
  // Row 2 is read twice per batch entry: its gradient counts both reads.
  sum(picked).backward();
  std::vector<double> want(24, 0.0);
  for (int64_t i : {8, 9, 10, 11, 20, 21, 22, 23}) want[static_cast<size_t>(i)] = 2;
  expect_close(x.grad(), {2, 3, 4}, want);

  const Tensor w = x * 1.0;
  const Tensor written = index_put(w, {longs({0, 1}, {2}), longs({1, 1}, {2}), longs({0, 0}, {2})}, v);
  sum(written * written).backward();
  // d/dv of v^2 is 2v; the overwritten x elements get no gradient.
  expect_close(v.grad(), {2}, {2, 4});
}

TEST(AdvancedIndexing, InPlaceWriteIntoNonLeafIsDifferentiable) {
  const Tensor x = tensor<double>({1, 2, 3, 4}).requires_grad_();
  Tensor y = x * 2.0;
  index_put_(y, {longs({0, 2}, {2})}, tensor<double>({10, 20}), /*accumulate=*/true);
  sum(y * y).backward();
  // y = [12, 4, 26, 8]; d/dx = 2 * y * 2.
  expect_close(x.grad(), {4}, {48, 16, 104, 32});
}

TEST(AdvancedIndexing, Errors) {
  const Tensor x = arange_cube();
  expect_error([&] { index(x, {longs({3}, {1})}); }, ErrorKind::Index, "index 3 is out of bounds for dimension 0 with size 2");
  expect_error([&] { index(x, {longs({-4}, {1}), std::nullopt}); }, ErrorKind::Index, "index -4 is out of bounds");
  expect_error([&] { index(x, {tensor<float>({0})}); }, ErrorKind::Index, "must be integer or bool tensors");
  expect_error([&] { index(x, {longs({0}, {1}), longs({0}, {1}), longs({0}, {1}), longs({0}, {1})}); },
               ErrorKind::Index, "too many indices for tensor of dimension 3");
  expect_error([&] { index(x, {longs({0, 1}, {2}), longs({0, 1, 2}, {3})}); }, ErrorKind::Index, "[2]");
  expect_error([&] { index(x, {ones({3}, TensorOptions(DType::Bool))}); }, ErrorKind::Index,
               "the shape of the mask [3] at index 0 does not match");
  Tensor y = zeros({5});
  expect_error(
      [&] {
        index_put_(y, {longs({0, 1}, {2})}, ones({3}));
      },
      ErrorKind::Runtime, "value tensor of shape [3] cannot be broadcast to indexing result of shape [2]");
  expect_close(y, {5}, {0, 0, 0, 0, 0});
}

}  // namespace
}  // namespace ember
