#include <gtest/gtest.h>

#include <ember/ember.h>

#include "expect_error.h"
#include "gradcheck.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::leaf;

std::vector<float> values(const Tensor& t) { return t.tolist<float>(); }

TEST(Autograd, ProductRuleAndBroadcastReduction) {
  Tensor a = tensor<float>({1, 2, 3}, {3, 1}).requires_grad_();
  Tensor b = tensor<float>({10, 20}).requires_grad_();
  Tensor y = sum(a * b);
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(y.requires_grad());
  y.backward();
  EXPECT_EQ(a.grad().sizes(), DimVector({3, 1}));
  EXPECT_EQ(values(a.grad()), (std::vector<float>{30, 30, 30}));
  EXPECT_EQ(values(b.grad()), (std::vector<float>{6, 6}));
}

TEST(Autograd, GradientsAccumulateAcrossBackwardCalls) {
  Tensor x = tensor<float>({2}).requires_grad_();
  sum(x * x).backward();
  sum(x * x).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{8}));
}

TEST(Autograd, SecondBackwardNeedsRetainGraph) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  Tensor y = sum(exp(x));
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_NEAR(values(x.grad())[1], 2 * std::exp(2.0f), 1e-4);
  expect_error([&] { y.backward(); }, ErrorKind::Runtime, "backward through the graph a second time");
}

TEST(Autograd, NonScalarNeedsGradient) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  Tensor y = x * 2.0;
  expect_error([&] { y.backward(); }, ErrorKind::Runtime, "implicitly created only for scalar outputs");
  y.backward(tensor<float>({1, 10}));
  EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 20}));
}

TEST(Autograd, InPlaceOnLeafIsAnError) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  expect_error([&] { add_(x, ones({2})); }, ErrorKind::Runtime, "leaf Variable that requires grad");
  {
    autograd::NoGradGuard no_grad;
    add_(x, ones({2}));
  }
  EXPECT_EQ(values(x), (std::vector<float>{2, 3}));
}

TEST(Autograd, ModifiedSavedTensorIsAnError) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  Tensor h = x * 1.0;
  Tensor y = sum(h * h);
  add_(h, ones({2}));
  expect_error([&] { y.backward(); }, ErrorKind::Runtime, "modified by an inplace operation");
}

TEST(Autograd, InPlaceOnNonLeafIsRecorded) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  Tensor h = x * 3.0;
  mul_(h, h);  // h = (3x)^2, d/dx = 18x
  sum(h).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{18, 36}));
}

TEST(Autograd, HigherOrderGradients) {
  Tensor x = tensor<double>({1.5, -2.0}).requires_grad_();
  Tensor y = sum(x * x * x);
  const Tensor dx = autograd::grad({y}, {x}, {}, false, /*create_graph=*/true)[0];
  EXPECT_TRUE(dx.requires_grad());
  const Tensor ddx = autograd::grad({sum(dx)}, {x})[0];
  EXPECT_EQ(ddx.tolist<double>(), (std::vector<double>{9.0, -12.0}));
  EXPECT_FALSE(x.grad().defined());
}

TEST(Autograd, GradModes) {
  Tensor x = tensor<float>({1}).requires_grad_();
  {
    autograd::NoGradGuard no_grad;
    EXPECT_FALSE(autograd::is_grad_enabled());
    EXPECT_FALSE((x * 2.0).requires_grad());
    {
      autograd::EnableGradGuard enable;
      EXPECT_TRUE((x * 2.0).requires_grad());
    }
  }
  {
    autograd::InferenceModeGuard inference;
    EXPECT_FALSE(exp(x).requires_grad());
  }
  EXPECT_TRUE(autograd::is_grad_enabled());
}

TEST(Autograd, IntegerAndBoolOutputsAreNotDifferentiable) {
  Tensor x = tensor<float>({1, 3, 2}).requires_grad_();
  EXPECT_FALSE(argmax(x).requires_grad());
  EXPECT_FALSE(gt(x, 1.0).requires_grad());
  EXPECT_FALSE(x.to(DType::Int32).requires_grad());
  expect_error([] { tensor<int64_t>({1}).requires_grad_(); }, ErrorKind::Runtime, "floating point");
}

TEST(Autograd, DetachAndHooks) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  Tensor d = (x * 2.0).detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  Tensor h = x * 2.0;
  autograd::register_hook(h, [](const Tensor& g) { return g * 10.0; });
  autograd::register_hook(x, [](const Tensor& g) { return g + 1.0; });
  sum(h).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{21, 21}));
}

// The hook is registered before any graph uses x, so nothing but x keeps
// its accumulator alive in between.
TEST(Autograd, HookOnALeafRegisteredBeforeAnyGraphIsKept) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  autograd::register_hook(x, [](const Tensor& g) { return g * 10.0; });
  sum(x * x).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{20, 40}));
  sum(x * 3.0).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{50, 70}));
}

TEST(Autograd, SetDataSwapsStorageAndKeepsAutogradState) {
  Tensor x = tensor<float>({1, 2}).requires_grad_();
  sum(x * x).backward();
  Tensor replacement = tensor<float>({3, 4, 5});
  x.set_data(replacement);
  EXPECT_EQ(x.data_ptr(), replacement.data_ptr());
  EXPECT_TRUE(x.requires_grad() && x.is_leaf());
  EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 4}));  // .grad stays, as in PyTorch
  x.set_grad(Tensor());
  sum(x * x).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{6, 8, 10}));
  // The dispatch keys follow the new data's device.
  x.set_data(empty({2, 2}, TensorOptions(DType::Float64, Device("meta"))));
  EXPECT_TRUE((x * 2.0).device().is_meta());
  expect_error([&] { x.set_data(tensor<int64_t>({1})); }, ErrorKind::Runtime, "floating point data, got int64");
}

TEST(Autograd, GradLeavesDotGradAloneAndReportsUnusedInputs) {
  Tensor a = tensor<float>({3}).requires_grad_();
  Tensor b = tensor<float>({4}).requires_grad_();
  const Tensor y = sum(a * a);
  expect_error([&] { autograd::grad({y}, {a, b}, {}, true); }, ErrorKind::Runtime, "was not used");
  const auto g = autograd::grad({y}, {a, b}, {}, false, false, /*allow_unused=*/true);
  EXPECT_EQ(values(g[0]), (std::vector<float>{6}));
  EXPECT_FALSE(g[1].defined());
  EXPECT_FALSE(a.grad().defined());
}

TEST(Autograd, GradWithRespectToIntermediateRunsOnlyTheGraphBelowIt) {
  Tensor x = tensor<float>({2}).requires_grad_();
  const Tensor h = x * x;
  bool above_ran = false;
  autograd::register_hook(x, [&](const Tensor&) {
    above_ran = true;
    return Tensor();
  });
  const auto g = autograd::grad({sum(h * 3.0)}, {h});
  EXPECT_EQ(values(g[0]), (std::vector<float>{3}));
  EXPECT_FALSE(above_ran);
  // The x * x node kept its saved tensors: a backward through it still works.
  sum(h).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{4}));
  EXPECT_TRUE(above_ran);
}

TEST(Autograd, AsStridedOverlappingWindowsAccumulate) {
  Tensor x = tensor<float>({1, 2, 3, 4}).requires_grad_();
  // Windows [0,1], [1,2], [2,3]: the middle elements are read twice.
  sum(x.as_strided({3, 2}, {1, 1})).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{1, 2, 2, 1}));
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// y = x^2 with a hand-written backward, plus an index output.
class SquareWithArgmax : public autograd::CustomFunction {
 public:
  std::string name() const override { return "SquareWithArgmax"; }
  std::vector<Tensor> forward(autograd::FunctionContext& ctx, const std::vector<Tensor>& in) override {
    ctx.save_for_backward({in[0]});
    Tensor index = argmax(in[0]).to(DType::Float32);
    ctx.mark_non_differentiable({index});
    EXPECT_FALSE(autograd::is_grad_enabled());
    return {in[0] * in[0], index};
  }
  std::vector<Tensor> backward(autograd::FunctionContext& ctx, const std::vector<Tensor>& grads) override {
    ++backward_calls;
    EXPECT_TRUE(ctx.needs_input_grad(0));
    EXPECT_FALSE(ctx.needs_input_grad(1));
    const Tensor x = ctx.saved_tensors()[0];
    return {grads[0] * x * 2.0, Tensor()};
  }
  int backward_calls = 0;
};

TEST(CustomFunction, ForwardBackwardSavedAndNonDifferentiable) {
  auto fn = std::make_shared<SquareWithArgmax>();
  Tensor x = tensor<float>({1, 3, 2}).requires_grad_();
  const Tensor unused = tensor<float>({0});
  const auto outs = autograd::apply_function(fn, {x, unused});
  EXPECT_TRUE(outs[0].requires_grad());
  EXPECT_FALSE(outs[1].requires_grad());
  EXPECT_EQ(outs[1].item<float>(), 1.0f);
  sum(outs[0]).backward();
  EXPECT_EQ(fn->backward_calls, 1);
  EXPECT_EQ(x.grad().tolist<float>(), (std::vector<float>{2, 6, 4}));
}

// A pack hook that keeps a copy of each saved tensor, counting packs and unpacks.
class CopyingPackHook {
 public:
  struct Copy : autograd::PackedSavedTensor {
    Copy(Tensor kept, int* unpacks) : kept(std::move(kept)), unpacks(unpacks) {}
    Tensor unpack() const override {
      ++*unpacks;
      return kept;
    }
    Tensor kept;
    int* unpacks;
  };

  autograd::SavedTensorPackHook hook() {
    return [this](const Tensor& t) {
      ++packs;
      return std::make_shared<Copy>(t.detach().clone(), &unpacks);
    };
  }
  int packs = 0;
  int unpacks = 0;
};

TEST(SavedTensorHooks, SavedTensorsArePackedAndUnpackedByBackward) {
  CopyingPackHook hooks;
  Tensor a = tensor<float>({1, 2, 3}).requires_grad_();
  autograd::push_saved_tensor_pack_hook(hooks.hook());
  Tensor y = sum(sin(a * a));
  autograd::pop_saved_tensor_pack_hook();
  EXPECT_GT(hooks.packs, 0);
  EXPECT_EQ(hooks.unpacks, 0);
  Tensor expected = (cos(a * a) * a * 2.0).detach();
  y.backward();
  EXPECT_EQ(hooks.unpacks, hooks.packs);
  EXPECT_EQ(values(a.grad()), values(expected));
  const int packs = hooks.packs;
  sum(a * a);
  EXPECT_EQ(hooks.packs, packs) << "no hook is pushed any more";
  expect_error([] { autograd::pop_saved_tensor_pack_hook(); }, ErrorKind::Runtime, "no pack hook is pushed");
}

TEST(SavedTensorHooks, ACustomFunctionsSavedInputIsPacked) {
  CopyingPackHook hooks;
  auto fn = std::make_shared<SquareWithArgmax>();
  Tensor x = tensor<float>({1, 3, 2}).requires_grad_();
  autograd::push_saved_tensor_pack_hook(hooks.hook());
  const auto outs = autograd::apply_function(fn, {x, Tensor()});
  autograd::pop_saved_tensor_pack_hook();
  EXPECT_EQ(hooks.packs, 1);
  sum(outs[0]).backward();
  EXPECT_EQ(hooks.unpacks, 1);
  EXPECT_EQ(x.grad().tolist<float>(), (std::vector<float>{2, 6, 4}));
}

TEST(CustomFunction, ModifiedSavedInputIsAnError) {
  Tensor base = tensor<float>({1, 2}).requires_grad_();
  Tensor x = base * 1.0;
  const auto outs = autograd::apply_function(std::make_shared<SquareWithArgmax>(), {x, Tensor()});
  add_(x, ones({2}));
  expect_error([&] { sum(outs[0]).backward(); }, ErrorKind::Runtime, "SquareWithArgmax");
}

}  // namespace
}  // namespace ember
