// Fused composite kernels against the core's decompositions, and the
// primitives-only contract: with overrides off, training gives the same
// losses (Note [Composite kernels]).
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "gradcheck.h"

namespace ember {
namespace {

class CompositeKernels : public ::testing::Test {
 protected:
  void TearDown() override { set_composite_kernels_enabled(true); }
};

std::vector<double> run_both(const std::function<Tensor()>& f) {
  set_composite_kernels_enabled(true);
  const std::vector<double> fused = f().tolist<double>();
  set_composite_kernels_enabled(false);
  const std::vector<double> decomposed = f().tolist<double>();
  set_composite_kernels_enabled(true);
  EXPECT_EQ(fused.size(), decomposed.size());
  for (size_t i = 0; i < fused.size(); ++i) EXPECT_NEAR(fused[i], decomposed[i], 1e-5) << i;
  return fused;
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

TEST_F(CompositeKernels, FusedKernelsHaveDerivatives) {
  const Tensor x = testing::leaf({3, 4}, 21);
  testing::gradcheck([](const std::vector<Tensor>& v) { return softmax(v[0], 1); }, {x}, "fused softmax");
  testing::gradcheck([](const std::vector<Tensor>& v) { return log_softmax(v[0], 0); }, {x}, "fused log_softmax");
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
