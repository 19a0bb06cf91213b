// Composite ops are differentiable through their decompositions.
#include <gtest/gtest.h>

#include <ember/autograd.h>
#include <ember/ember.h>

#include "functional_test_util.h"

namespace {

using ember::Tensor;
using ember::testing::expect_close;
using ember::testing::pattern;

TEST(FunctionalAutograd, CrossEntropyGradientIsSoftmaxMinusOneHot) {
  Tensor logits = pattern({2, 3});
  logits.requires_grad_();
  const Tensor target = ember::tensor<int64_t>({2, 0});
  ember::autograd::backward({ember::cross_entropy(logits, target)});
  const Tensor expected = (ember::softmax(logits, 1) - ember::one_hot(target, 3).to(ember::DType::Float32)) / 2;
  expect_close(logits.grad(), {2, 3}, expected.tolist<double>());
}

TEST(FunctionalAutograd, ReluGradientIsZeroAtZeroAndNaNPropagates) {
  Tensor x = ember::tensor<float>({-1, 0, 2, NAN});
  x.requires_grad_();
  const Tensor y = ember::relu(x);
  EXPECT_TRUE(std::isnan(y.tolist<float>()[3]));
  ember::autograd::backward({ember::sum(y.slice(0, 0, 3))});
  expect_close(x.grad(), {4}, {0, 0, 1, 0});
}

TEST(FunctionalAutograd, BatchNormRunningStatsRecordNoGraph) {
  Tensor x = pattern({4, 2});
  x.requires_grad_();
  Tensor rm = ember::zeros({2}), rv = ember::ones({2});
  const Tensor y = ember::batch_norm(x, rm, rv, std::nullopt, std::nullopt, true);
  EXPECT_FALSE(rm.requires_grad());
  EXPECT_FALSE(rv.requires_grad());
  ember::autograd::backward({ember::sum(y * y)});
  EXPECT_TRUE(x.grad().defined());
}

TEST(FunctionalAutograd, Conv2dWeightGradient) {
  // d(sum(conv2d(x, w)))/dw[o, c, i, j] is the sum of x over the window
  // positions that kernel tap (i, j) visits.
  const Tensor x = pattern({1, 1, 3, 3});
  Tensor w = ember::ones({1, 1, 2, 2});
  w.requires_grad_();
  ember::autograd::backward({ember::sum(ember::conv2d(x, w))});
  const std::vector<double> v = x.tolist<double>();
  const auto window_sum = [&](int r, int c) { return v[r * 3 + c] + v[r * 3 + c + 1] + v[(r + 1) * 3 + c] + v[(r + 1) * 3 + c + 1]; };
  expect_close(w.grad(), {1, 1, 2, 2}, {window_sum(0, 0), window_sum(0, 1), window_sum(1, 0), window_sum(1, 1)});
}

}  // namespace
