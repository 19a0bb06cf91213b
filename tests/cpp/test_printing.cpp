#include <gtest/gtest.h>

#include <ember/ember.h>

namespace ember {
namespace {

TEST(Printing, MatchesPyTorchLayout) {
  EXPECT_EQ(tensor<float>({1, 2, 3}).str(), "tensor([1., 2., 3.])");
  EXPECT_EQ(tensor<float>({1.5f, -2.25f}).str(), "tensor([ 1.5000, -2.2500])");
  EXPECT_EQ(tensor<int64_t>({1, 20, 3}).str(), "tensor([ 1, 20,  3])");
  EXPECT_EQ(tensor<int32_t>({4}).str(), "tensor([4], dtype=ember.int32)");
  EXPECT_EQ(tensor<bool>({true, false}).str(), "tensor([ True, False])");
  EXPECT_EQ(tensor<double>({0.5}).str(), "tensor([0.5000], dtype=ember.float64)");
  EXPECT_EQ(scalar_tensor(3.0).str(), "tensor(3.)");
  EXPECT_EQ(arange(4, DType::Float32).view({2, 2}).str(), "tensor([[0., 1.],\n        [2., 3.]])");
  EXPECT_EQ(empty({0}).str(), "tensor([])");
  EXPECT_EQ(empty({0, 3}).str(), "tensor([], size=(0, 3))");
  EXPECT_EQ(empty({2, 3}, "meta").str(), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(tensor<float>({1e-5f, 1.0f}).str(), "tensor([1.0000e-05, 1.0000e+00])");
}

TEST(Printing, SummarizesLargeTensors) {
  const std::string s = arange(2000).str();
  EXPECT_EQ(s, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
}

}  // namespace
}  // namespace ember
