// Autocast from C++ (Note [Autocast]): the guard's region, the policy of
// catalogue ops and composites, gradients back to float32 leaves, and the
// thread state restored however the region ends.
#include <gtest/gtest.h>

#include <stdexcept>

#include <ember/ember.h>

namespace ember {
namespace {

using autocast::AutocastGuard;

TEST(Autocast, MatrixProductsNarrowAndLossesWiden) {
  const Tensor a = randn({3, 4}), w = randn({2, 4}), b = randn({2});
  {
    AutocastGuard region(kCpuDeviceType, DType::BFloat16);
    EXPECT_EQ(mm(a, w.t()).dtype(), DType::BFloat16);
    // The bias joins the product in bfloat16 instead of promoting it back.
    const Tensor out = linear(a, w, b);
    EXPECT_EQ(out.dtype(), DType::BFloat16);
    EXPECT_EQ(mse_loss(out, out.detach()).dtype(), DType::Float32);
    EXPECT_EQ(relu(out).dtype(), DType::BFloat16);
    EXPECT_EQ(matmul(a.to(DType::Float64), w.t().to(DType::Float64)).dtype(), DType::Float64);
  }
  EXPECT_EQ(mm(a, w.t()).dtype(), DType::Float32);
  EXPECT_FALSE(autocast::is_enabled(kCpuDeviceType));
}

TEST(Autocast, GradientsReachTheFloat32Leaves) {
  Tensor x = randn({3, 4}).requires_grad_();
  Tensor w = randn({2, 4}).requires_grad_();
  Tensor loss;
  {
    AutocastGuard region(kCpuDeviceType, DType::BFloat16);
    loss = sum(linear(x, w));
  }
  autograd::backward({loss.to(DType::Float32)});
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().dtype(), DType::Float32);
  EXPECT_EQ(x.grad().dtype(), DType::Float32);
  // d(sum(x w^T))/dw is the column sums of x, each row of w alike.
  const Tensor expected = sum(x.detach(), {0}).unsqueeze(0).expand({2, 4});
  EXPECT_LT(amax(abs(w.grad() - expected)).item<float>(), 5e-2f);
}

TEST(Autocast, NestedRegionsAndExceptionsRestoreTheState) {
  const Tensor a = randn({2, 2});
  try {
    AutocastGuard outer(kCpuDeviceType, DType::Float16);
    {
      AutocastGuard off(kCpuDeviceType, DType::Float16, /*enabled=*/false);
      EXPECT_EQ(mm(a, a).dtype(), DType::Float32);
    }
    EXPECT_EQ(mm(a, a).dtype(), DType::Float16);
    throw std::runtime_error("leaves the region");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(autocast::is_enabled(kCpuDeviceType));
  EXPECT_EQ(autocast::dtype(kCpuDeviceType), DType::BFloat16);
  EXPECT_EQ(mm(a, a).dtype(), DType::Float32);
}

TEST(Autocast, ADtypeItCannotUseIsRefusedByName) {
  try {
    AutocastGuard region(kCpuDeviceType, DType::Float32);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(autocast::is_enabled(kCpuDeviceType));
}

}  // namespace
}  // namespace ember
