#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/printing.h>

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
  // With no values shown, every dtype but the default float one is named.
  EXPECT_EQ(empty({0}, TensorOptions(DType::Int64)).str(), "tensor([], dtype=ember.int64)");
  EXPECT_EQ(empty({0, 2}, TensorOptions(DType::Bool)).str(), "tensor([], size=(0, 2), dtype=ember.bool)");
  EXPECT_EQ(empty({2}, TensorOptions(DType::Int64, Device("meta"))).str(),
            "tensor(..., device='meta', size=(2,), dtype=ember.int64)");
  EXPECT_EQ(tensor<float>({1e-5f, 1.0f}).str(), "tensor([1.0000e-05, 1.0000e+00])");
}

TEST(Printing, SummarizesLargeTensors) {
  const std::string s = arange(2000).str();
  EXPECT_EQ(s, "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
}

// Restores the defaults when a test ends, pass or fail.
struct PrintOptionsScope {
  PrintOptionsScope() = default;
  PrintOptionsScope(const PrintOptionsScope&) = delete;
  PrintOptionsScope& operator=(const PrintOptionsScope&) = delete;
  ~PrintOptionsScope() { set_print_options(PrintOptions{}); }
};

TEST(Printing, FollowsPrintOptions) {
  PrintOptionsScope restore;
  PrintOptions options;
  options.precision = 2;
  set_print_options(options);
  EXPECT_EQ(tensor<float>({1.5f, -2.25f}).str(), "tensor([ 1.50, -2.25])");
  options.sci_mode = true;
  set_print_options(options);
  EXPECT_EQ(tensor<float>({1, 2}).str(), "tensor([1.00e+00, 2.00e+00])");
  options = PrintOptions{};
  options.threshold = 4;
  options.edgeitems = 1;
  set_print_options(options);
  EXPECT_EQ(arange(6).str(), "tensor([0,  ..., 5])");
  options = PrintOptions{};
  options.linewidth = 20;
  set_print_options(options);
  EXPECT_EQ(arange(6).str(), "tensor([0, 1, 2, 3,\n        4, 5])");
  EXPECT_EQ(print_options().linewidth, 20);
}

}  // namespace
}  // namespace ember
