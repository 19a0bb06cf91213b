// Fused composite kernels against the core's decompositions, and the
// primitives-only contract: with overrides off, training gives the same
// losses (Note [Composite kernels]).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <ember/autograd.h>
#include <ember/ember.h>

#include "gradcheck.h"

namespace ember {
namespace {

class CompositeKernels : public ::testing::Test {
 protected:
  void TearDown() override { set_composite_kernels_enabled(true); }
};

std::vector<double> run_both(const std::function<Tensor()>& f, double tolerance = 1e-5) {
  set_composite_kernels_enabled(true);
  const std::vector<double> fused = f().tolist<double>();
  set_composite_kernels_enabled(false);
  const std::vector<double> decomposed = f().tolist<double>();
  set_composite_kernels_enabled(true);
  EXPECT_EQ(fused.size(), decomposed.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    EXPECT_NEAR(fused[i], decomposed[i], tolerance * std::max(1.0, std::fabs(decomposed[i]))) << i;
  }
  return fused;
}

// The output and the gradients of every input, flattened into one tensor.
Tensor with_gradients(const Tensor& out, const std::vector<Tensor>& inputs) {
  const Tensor weights = cos(arange(out.numel(), TensorOptions(out.dtype())).reshape(out.sizes()));
  std::vector<Tensor> parts{out.reshape({-1})};
  for (const Tensor& g : autograd::grad({sum(out * weights)}, inputs)) parts.push_back(g.reshape({-1}));
  return cat(parts, 0);
}

TEST_F(CompositeKernels, SoftmaxFamilyMatchesDecomposition) {
  manual_seed(3);
  const Tensor x = randn({4, 5, 6}) * 10.0;
  for (int64_t dim : {0, 1, -1}) {
    run_both([&] { return softmax(x, dim); });
    run_both([&] { return log_softmax(x.transpose(0, 2), dim); });
  }
  const auto big = run_both([] { return softmax(tensor<float>({1000, 1001, 999}), 0); });
  EXPECT_NEAR(big[1], 0.665241, 1e-5);
}

// Every path of the fused softmax kernels (Note [Fused softmax]): short and
// long contiguous lines, lines longer than L2 (streamed), blocks of lines
// over a non-last dim (one block, several, a partial one, a block too tall
// for L2), in each floating dtype the decomposition computes alike.
TEST_F(CompositeKernels, SoftmaxEveryLayoutMatchesDecomposition) {
  manual_seed(5);
  struct Case {
    std::vector<int64_t> shape;
    int64_t dim;
  };
  const std::vector<Case> cases = {{{3, 1000}, 1},    {{37, 5}, 1},    {{2, 140000}, 1}, {{300, 17, 3}, 0},
                                   {{2, 70, 600}, 1}, {{5000, 40}, 0}, {{70000, 3}, 0},  {{4500, 300}, 0}};
  for (const Case& c : cases) {
    const Tensor x = randn(c.shape) * 5.0;
    for (const DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
      std::string shape;
      for (const int64_t size : c.shape) shape += std::to_string(size) + " ";
      SCOPED_TRACE("shape " + shape + "dim " + std::to_string(c.dim) + " " + std::string(dtype_name(dtype)));
      const double tolerance = dtype == DType::BFloat16 ? 1e-2 : 1e-5;
      const Tensor input = x.to(dtype);
      run_both([&] { return softmax(input, c.dim).to(DType::Float64); }, tolerance);
      run_both([&] { return log_softmax(input, c.dim).to(DType::Float64); }, tolerance);
    }
  }
}

// NaN anywhere in a line makes the whole line NaN, a line of -inf is NaN,
// and -inf entries of a finite line give 0 (log: -inf), on the line and the
// block paths alike, as in PyTorch.
TEST_F(CompositeKernels, SoftmaxSpecialValues) {
  constexpr int64_t kLength = 300;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> values(3 * kLength);
  for (int64_t i = 0; i < kLength; ++i) {
    values[i] = std::sin(static_cast<float>(i));
    values[kLength + i] = i % 3 == 0 || i < kLength / 2 ? -inf : std::cos(static_cast<float>(i));
    values[2 * kLength + i] = -inf;
  }
  values[kLength / 2] = std::numeric_limits<float>::quiet_NaN();
  const Tensor lines = tensor<float>(values, {3, kLength});
  for (const bool along_rows : {true, false}) {
    for (const bool log : {false, true}) {
      SCOPED_TRACE(std::string(log ? "log_softmax" : "softmax") + (along_rows ? " along dim 1" : " along dim 0"));
      const Tensor input = along_rows ? lines : lines.t().contiguous();
      const int64_t dim = along_rows ? 1 : 0;
      const Tensor result = log ? log_softmax(input, dim) : softmax(input, dim);
      const std::vector<float> got = (along_rows ? result : result.t()).contiguous().tolist<float>();
      double total = 0;
      for (int64_t i = 0; i < kLength; ++i) {
        EXPECT_TRUE(std::isnan(got[i])) << "NaN line, element " << i;
        EXPECT_TRUE(std::isnan(got[2 * kLength + i])) << "-inf line, element " << i;
        const float v = got[kLength + i];
        if (std::isinf(values[kLength + i])) {
          EXPECT_EQ(v, log ? -inf : 0.0f) << "element " << i;
        } else {
          EXPECT_TRUE(std::isfinite(v)) << "element " << i;
        }
        total += log ? std::exp(static_cast<double>(v)) : v;
      }
      EXPECT_NEAR(total, 1.0, 1e-5);
    }
  }
}

TEST_F(CompositeKernels, FusedKernelsHaveDerivatives) {
  const Tensor x = testing::leaf({3, 4}, 21);
  testing::gradcheck([](const std::vector<Tensor>& v) { return softmax(v[0], 1); }, {x}, "fused softmax");
  testing::gradcheck([](const std::vector<Tensor>& v) { return log_softmax(v[0], 0); }, {x}, "fused log_softmax");
}

struct ConvCase {
  std::vector<int64_t> input, weight;
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
};

TEST_F(CompositeKernels, ConvolutionAndItsGradientsMatchDecomposition) {
  const std::vector<ConvCase> cases = {
      {{2, 3, 9, 8}, {4, 3, 3, 3}, {1}, {0}, {1}, 1},
      {{2, 4, 9, 8}, {6, 2, 3, 2}, {2, 1}, {1, 2}, {1}, 2},
      {{1, 3, 11, 10}, {5, 3, 3, 3}, {3}, {2}, {2, 1}, 1},
      {{3, 6, 7, 7}, {6, 1, 3, 3}, {1}, {1}, {1}, 6},
  };
  for (const ConvCase& c : cases) {
    manual_seed(5);
    const Tensor x = randn(c.input).requires_grad_();
    const Tensor w = randn(c.weight).requires_grad_();
    const Tensor b = randn({c.weight[0]}).requires_grad_();
    run_both(
        [&] {
          return with_gradients(conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups), {x, w, b});
        },
        1e-4);
  }
  // A non-contiguous input and conv1d (a conv2d over a height of 1).
  const Tensor xt = randn({2, 8, 8, 3}).requires_grad_();
  const Tensor w = randn({4, 3, 3, 3}).requires_grad_();
  run_both([&] { return with_gradients(conv2d(xt.permute({0, 3, 1, 2}), w, std::nullopt, {1}, {1}), {xt, w}); }, 1e-4);
  const Tensor x1 = randn({2, 3, 12}).requires_grad_();
  const Tensor w1 = randn({5, 3, 4}).requires_grad_();
  run_both([&] { return with_gradients(conv1d(x1, w1, std::nullopt, {2}, {1}), {x1, w1}); }, 1e-4);
}

TEST_F(CompositeKernels, FusedConvolutionHasSecondOrderGradients) {
  manual_seed(6);
  const Tensor x = randn({1, 2, 6, 6}).requires_grad_();
  const Tensor w = randn({3, 2, 3, 3}).requires_grad_();
  run_both(
      [&] {
        const Tensor y = conv2d(x, w, std::nullopt, {2}, {1});
        const Tensor gx = autograd::grad({sum(y * y)}, {x}, {}, false, /*create_graph=*/true)[0];
        return autograd::grad({sum(gx * gx)}, {w})[0];
      },
      1e-4);
}

TEST_F(CompositeKernels, PoolingAndItsGradientsMatchDecomposition) {
  manual_seed(7);
  const Tensor x = randn({2, 3, 9, 8}).requires_grad_();
  const Tensor xt = randn({2, 9, 8, 3}).requires_grad_();
  run_both([&] { return with_gradients(max_pool2d(x, {2}), {x}); });
  run_both([&] { return with_gradients(max_pool2d(x, {3, 2}, {2, 1}, {1}, {1, 2}), {x}); });
  run_both([&] { return with_gradients(max_pool2d(xt.permute({0, 3, 1, 2}), {3}, {2}, {1}), {xt}); });
  run_both([&] { return max_pool2d_with_indices(x, {3, 2}, {2, 1}, {1}, {1, 2}).indices; });
  // ceil_mode (Note [Max pool ceil_mode]): one more row (9 -> 5 windows of 2),
  // then one more column (8 -> 4 windows of 3), where the fused kernel's
  // indices count columns of the widened plane.
  run_both([&] { return with_gradients(max_pool2d(x, {2}, {2}, {0}, {1}, /*ceil_mode=*/true), {x}); });
  run_both([&] { return with_gradients(max_pool2d(x, {3}, {2}, {1}, {1}, /*ceil_mode=*/true), {x}); });
  run_both([&] { return max_pool2d_with_indices(x, {3}, {2}, {0}, {1}, /*ceil_mode=*/true).indices; });
  EXPECT_EQ(max_pool2d(x, {3}, {2}, {0}, {1}, /*ceil_mode=*/true).sizes(), (DimVector{2, 3, 4, 4}));
  run_both([&] { return with_gradients(avg_pool2d(x, {2}), {x}); });
  run_both([&] { return with_gradients(avg_pool2d(x, {3}, {2}, {1}, /*count_include_pad=*/true), {x}); });
  run_both([&] { return with_gradients(avg_pool2d(x, {3, 2}, {1, 2}, {1}, /*count_include_pad=*/false), {x}); });
  run_both([&] { return with_gradients(avg_pool2d(xt.permute({0, 3, 1, 2}).select(0, 0), {2}, {1}), {xt}); });
}

TEST_F(CompositeKernels, FusedMaxPoolPropagatesNaNAndIgnoresPadding) {
  const float nan = std::nanf("");
  const Tensor x = tensor<float>({-5, nan, -7, -8}, {1, 1, 2, 2});
  const std::vector<float> pooled = max_pool2d(x, {2}, {1}, {1}).tolist<float>();
  ASSERT_EQ(pooled.size(), 9u);
  EXPECT_EQ(pooled[0], -5.0f);  // a corner window sees one real value, and padding never wins
  EXPECT_TRUE(std::isnan(pooled[4]));
  EXPECT_EQ(pooled[6], -7.0f);
  EXPECT_EQ(pooled[8], -8.0f);
}

TEST_F(CompositeKernels, FusedMaxPoolIndexIsFirstNaNElseFirstMaximum) {
  const float nan = std::nanf("");
  const float inf = std::numeric_limits<float>::infinity();
  // Windows of 2x2, stride 2: a NaN after a larger value, two NaNs, a tie,
  // and a window of -inf only.
  const Tensor x = tensor<float>({1, 3, 2, nan, 4, 0, -inf, -inf,  //
                                  0, nan, nan, 5, 0, 4, -inf, -inf},
                                 {1, 1, 2, 8});
  const ValuesIndices pooled = max_pool2d_with_indices(x, {2});
  const std::vector<float> values = pooled.values.tolist<float>();
  EXPECT_TRUE(std::isnan(values[0]));
  EXPECT_TRUE(std::isnan(values[1]));
  EXPECT_EQ(values[2], 4.0f);
  EXPECT_EQ(values[3], -inf);
  EXPECT_EQ(pooled.indices.tolist<int64_t>(), (std::vector<int64_t>{9, 3, 4, 6}));
}

TEST_F(CompositeKernels, FusedPoolingHasSecondOrderGradients) {
  const Tensor x = testing::leaf({1, 2, 5, 5}, 31).to(DType::Float32).detach().requires_grad_();
  run_both(
      [&] {
        const Tensor y = avg_pool2d(x, {3}, {2}, {1}, false);
        const Tensor gx = autograd::grad({sum(y * y * x.slice(3, 0, 3).slice(2, 0, 3))}, {x}, {}, false, true)[0];
        return autograd::grad({sum(gx * gx)}, {x})[0];
      },
      1e-4);
}

TEST_F(CompositeKernels, LayerNormAndItsGradientsMatchDecomposition) {
  manual_seed(8);
  const Tensor x = (randn({4, 3, 6}) * 3.0 + 100.0).requires_grad_();
  const Tensor w = randn({3, 6}).requires_grad_();
  const Tensor b = randn({3, 6}).requires_grad_();
  run_both([&] { return with_gradients(layer_norm(x, {6}, w.select(0, 1), b.select(0, 2)), {x, w, b}); }, 1e-4);
  run_both([&] { return with_gradients(layer_norm(x, {3, 6}, w, b, 1e-3), {x, w, b}); }, 1e-4);
  run_both([&] { return with_gradients(layer_norm(x.transpose(0, 1), {6}), {x}); }, 1e-4);
}

TEST_F(CompositeKernels, CrossEntropyAndItsGradientsMatchDecomposition) {
  manual_seed(9);
  const Tensor logits = (randn({6, 5}) * 4.0).requires_grad_();
  const Tensor target = tensor<int64_t>({0, 4, -100, 2, 2, 1});
  for (const char* reduction : {"mean", "sum", "none"}) {
    for (double smoothing : {0.0, 0.2}) {
      run_both([&] {
        return with_gradients(cross_entropy(logits, target, std::nullopt, -100, reduction, smoothing), {logits});
      });
    }
  }
  const Tensor target_ignoring_2 = tensor<int64_t>({0, 4, 2, 2, 3, 1});
  run_both(
      [&] {
        return with_gradients(cross_entropy(logits.t().t() * 1000.0, target_ignoring_2, std::nullopt, 2), {logits});
      },
      1e-4);
  const Tensor all_ignored = cross_entropy(logits, full({6}, Scalar(int64_t{-100}), TensorOptions(DType::Int64)));
  EXPECT_TRUE(std::isnan(all_ignored.item<float>()));
}

// Rows longer than the lane loops' step (Note [Lane reductions]) in float32
// and float64; bfloat16 computes in float32 and rounds once, so it gives the
// float32 kernel's result for the rounded inputs, to bfloat16's precision
// (the decomposition rounds every intermediate instead); and logits with
// strided classes.
TEST_F(CompositeKernels, LongRowsMatchDecomposition) {
  manual_seed(10);
  const Tensor x = randn({7, 1000}) * 3.0 + 5.0;
  const Tensor w = randn({1000});
  const Tensor b = randn({1000});
  const Tensor target = tensor<int64_t>({0, 999, 5, -100, 500, 17, 640});
  const auto norm = [&](DType dtype) { return layer_norm(x.to(dtype), {1000}, w.to(dtype), b.to(dtype)); };
  const auto loss = [&](DType dtype, double smoothing) {
    return cross_entropy(x.to(dtype), target, std::nullopt, -100, "none", smoothing);
  };
  for (const DType dtype : {DType::Float32, DType::Float64}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    run_both([&] { return norm(dtype).to(DType::Float64); }, 1e-4);
    for (const double smoothing : {0.0, 0.1}) run_both([&] { return loss(dtype, smoothing).to(DType::Float64); });
  }
  const auto expect_rounded_once = [](const Tensor& narrow, const Tensor& wide) {
    const std::vector<double> got = narrow.tolist<double>();
    const std::vector<double> want = wide.tolist<double>();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-2 * std::max(1.0, std::fabs(want[i]))) << i;
  };
  const auto rounded = [](const Tensor& t) { return t.to(DType::BFloat16).to(DType::Float32); };
  expect_rounded_once(norm(DType::BFloat16), layer_norm(rounded(x), {1000}, rounded(w), rounded(b)));
  expect_rounded_once(loss(DType::BFloat16, 0.1), cross_entropy(rounded(x), target, std::nullopt, -100, "none", 0.1));
  const Tensor strided = x.slice(1, 0, std::nullopt, 2);
  run_both(
      [&] {
        return cross_entropy(strided, tensor<int64_t>({0, 499, 5, -100, 250, 17, 321}), std::nullopt, -100, "sum", 0.1);
      },
      1e-4);
}

TEST_F(CompositeKernels, FusedCrossEntropyRejectsOutOfRangeTargets) {
  const Tensor logits = zeros({2, 3});
  try {
    cross_entropy(logits, tensor<int64_t>({1, 3}));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("target 3 at row 1 is out of bounds for 3 classes"), std::string::npos)
        << e.what();
  }
}

// A small MLP trained with SGD; returns the loss of every step.
std::vector<float> train_mlp(int steps) {
  manual_seed(11);
  const Tensor data = randn({32, 8});
  const Tensor labels = argmax(sum(data.view({32, 2, 4}), {2}), 1);
  Tensor w1 = (randn({8, 16}) * 0.3).requires_grad_();
  Tensor w2 = (randn({16, 2}) * 0.3).requires_grad_();
  std::vector<float> losses;
  for (int step = 0; step < steps; ++step) {
    const Tensor loss = cross_entropy(mm(relu(mm(data, w1)), w2), labels);
    loss.backward();
    losses.push_back(loss.item<float>());
    autograd::NoGradGuard no_grad;
    for (Tensor* p : {&w1, &w2}) {
      sub_(*p, p->grad() * 0.5);
      p->set_grad(Tensor());
    }
  }
  return losses;
}

// A small CNN (conv, pool, conv, global average, linear) trained with SGD.
std::vector<float> train_cnn(int steps) {
  manual_seed(12);
  const Tensor images = randn({16, 1, 12, 12});
  const Tensor labels = argmax(sum(images.view({16, 1, 2, 72}), {1, 3}), 1);
  Tensor c1 = (randn({6, 1, 3, 3}) * 0.4).requires_grad_();
  Tensor c2 = (randn({8, 6, 3, 3}) * 0.2).requires_grad_();
  Tensor fc = (randn({2, 8}) * 0.3).requires_grad_();
  std::vector<float> losses;
  for (int step = 0; step < steps; ++step) {
    const Tensor h = max_pool2d(relu(conv2d(images, c1, std::nullopt, {1}, {1})), {2});
    const Tensor features = adaptive_avg_pool2d(relu(conv2d(h, c2, std::nullopt, {2})), {1}).flatten(1);
    const Tensor loss = cross_entropy(linear(features, fc), labels);
    loss.backward();
    losses.push_back(loss.item<float>());
    autograd::NoGradGuard no_grad;
    for (Tensor* p : {&c1, &c2, &fc}) {
      sub_(*p, p->grad() * 0.3);
      p->set_grad(Tensor());
    }
  }
  return losses;
}

TEST_F(CompositeKernels, PrimitivesOnlyCnnTrainingMatchesFusedKernels) {
  const std::vector<float> fused = train_cnn(10);
  set_composite_kernels_enabled(false);
  const std::vector<float> primitives_only = train_cnn(10);
  ASSERT_EQ(fused.size(), primitives_only.size());
  for (size_t i = 0; i < fused.size(); ++i) EXPECT_NEAR(fused[i], primitives_only[i], 1e-4 * fused[0]) << "step " << i;
  EXPECT_LT(fused.back(), 0.8f * fused.front());
}

TEST_F(CompositeKernels, PrimitivesOnlyTrainingMatchesFusedKernels) {
  const std::vector<float> fused = train_mlp(15);
  set_composite_kernels_enabled(false);
  const std::vector<float> primitives_only = train_mlp(15);
  ASSERT_EQ(fused.size(), primitives_only.size());
  for (size_t i = 0; i < fused.size(); ++i) EXPECT_NEAR(fused[i], primitives_only[i], 1e-4 * fused[0]) << "step " << i;
  EXPECT_LT(fused.back(), 0.5f * fused.front());
}

}  // namespace
}  // namespace ember
