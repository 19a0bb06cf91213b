// End-to-end training through the decompositions: a small MLP and a small
// CNN take 20 plain SGD steps on a fixed synthetic data set. The loss must
// fall, and the float32 run must track a float64 run of the same model (same
// initial weights, converted) step by step.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

#include <ember/autograd.h>
#include <ember/ember.h>

namespace ember {
namespace {

using V = std::vector<Tensor>;
using Model = std::function<Tensor(const V& params, const Tensor& x)>;

constexpr int kSteps = 20;

// Initial parameters: randn * scale, per shape, from one seed.
V init_params(const std::vector<std::pair<DimVector, double>>& shapes, uint64_t seed) {
  manual_seed(seed);
  V params;
  for (const auto& [shape, scale] : shapes) params.push_back(randn(shape) * scale);
  return params;
}

// Leaves of `dtype` holding copies of `params` (to() of the same dtype
// aliases, and training updates the leaves in place).
V as_leaves(const V& params, DType dtype) {
  V out;
  for (const Tensor& p : params) out.push_back(p.to(dtype).clone().detach().requires_grad_());
  return out;
}

// Losses before each of kSteps SGD steps (p -= lr * p.grad, grads reset).
std::vector<double> train(const Model& model, V params, const Tensor& x, const Tensor& y, double lr) {
  std::vector<double> losses;
  for (int step = 0; step < kSteps; ++step) {
    const Tensor loss = cross_entropy(model(params, x), y);
    losses.push_back(loss.item<double>());
    autograd::backward({loss});
    autograd::NoGradGuard no_grad;
    for (Tensor& p : params) {
      EXPECT_TRUE(p.grad().defined()) << "step " << step;
      sub_(p, p.grad() * lr);
      p.set_grad(Tensor());
    }
  }
  return losses;
}

void expect_trains(const Model& model, const V& init, const Tensor& x, const Tensor& y, double lr,
                   double min_drop) {
  const std::vector<double> f32 = train(model, as_leaves(init, DType::Float32), x, y, lr);
  const std::vector<double> f64 = train(model, as_leaves(init, DType::Float64), x.to(DType::Float64), y, lr);
  ASSERT_EQ(f32.size(), static_cast<size_t>(kSteps));
  for (int i = 0; i < kSteps; ++i) {
    EXPECT_TRUE(std::isfinite(f32[i])) << "step " << i;
    EXPECT_NEAR(f32[i], f64[i], 1e-3 * std::abs(f64[i])) << "float32 vs float64 loss at step " << i;
  }
  EXPECT_LT(f32.back(), min_drop * f32.front()) << "loss " << f32.front() << " -> " << f32.back();
  EXPECT_LT(f64.back(), min_drop * f64.front());
}

// Labels a fixed random linear rule assigns: learnable, not separable by chance.
Tensor synthetic_labels(const Tensor& x_flat, int64_t classes, uint64_t seed) {
  manual_seed(seed);
  const Tensor rule = randn({x_flat.size(1), classes});
  return argmax(mm(x_flat, rule), 1);
}

TEST(Training, MlpLossFallsAndFloat32TracksFloat64) {
  manual_seed(7);
  const Tensor x = randn({64, 10});
  const Tensor y = synthetic_labels(x, 4, 8);
  const V init = init_params({{{32, 10}, 0.3}, {{32}, 0.1}, {{4, 32}, 0.2}, {{4}, 0.1}}, 9);
  const Model mlp = [](const V& p, const Tensor& in) { return linear(relu(linear(in, p[0], p[1])), p[2], p[3]); };
  expect_trains(mlp, init, x, y, /*lr=*/0.5, /*min_drop=*/0.5);
}

TEST(Training, CnnLossFallsAndFloat32TracksFloat64) {
  manual_seed(11);
  const Tensor x = randn({16, 1, 8, 8});
  const Tensor y = synthetic_labels(x.reshape({16, 64}), 3, 12);
  // conv 1->4 (3x3, padding 1) -> relu -> max_pool 2 -> [16, 4*4*4] -> linear 64->3
  const V init = init_params({{{4, 1, 3, 3}, 0.4}, {{4}, 0.1}, {{3, 64}, 0.15}, {{3}, 0.1}}, 13);
  const Model cnn = [](const V& p, const Tensor& in) {
    const Tensor h = max_pool2d(relu(conv2d(in, p[0], p[1], {1}, {1})), {2});
    return linear(h.flatten(1), p[2], p[3]);
  };
  expect_trains(cnn, init, x, y, /*lr=*/0.3, /*min_drop=*/0.6);
}

}  // namespace
}  // namespace ember
