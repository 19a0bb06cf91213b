// In-place writes under autograd: through views (CopySlices), overwrites
// that cut history, in-place forms of out-of-place ops, and the teardown
// and validation rules around the graph.
#include <gtest/gtest.h>

#include <pthread.h>

#include <cmath>
#include <memory>

#include <ember/ember.h>

#include "autograd/node.h"
#include "expect_error.h"

namespace ember {
namespace {

using testing::expect_error;

std::vector<float> values(const Tensor& t) { return t.tolist<float>(); }

Tensor leaf_of(std::vector<float> v, std::vector<int64_t> shape) { return tensor<float>(v, shape).requires_grad_(); }

TEST(InplaceThroughViews, WritingASelectedElementZeroesItsGradient) {
  Tensor w = leaf_of({0.5f, -1, 2}, {3});
  Tensor x = w * 1.0;
  x.select(0, 0).fill_(0.0);
  sum(x * 3.0).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<float>{0, 3, 3}));
  EXPECT_EQ(x.grad_fn()->name(), "CopySlices");
}

TEST(InplaceThroughViews, ColumnOfAMatrixCopiedFromAnotherTensor) {
  Tensor w = leaf_of({1, 2, 3, 4}, {2, 2});
  Tensor v = leaf_of({5, 6}, {2});
  Tensor x = w * 2.0;
  x.select(1, 0).copy_(v * v);
  sum(x * x).backward();
  // x = [[v0^2, 2 w01], [v1^2, 2 w11]]: w's first column is overwritten.
  EXPECT_EQ(values(w.grad()), (std::vector<float>{0, 16, 0, 32}));
  EXPECT_EQ(values(v.grad()), (std::vector<float>{4 * 125, 4 * 216}));
}

TEST(InplaceThroughViews, MultiplyingASliceKeepsItsSelfGradient) {
  Tensor w = leaf_of({1, 2, 3, 4}, {4});
  Tensor x = w * 1.0;
  Tensor s = x.slice(0, 1, 3);
  mul_(s, scalar_tensor(10.0));
  sum(x).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<float>{1, 10, 10, 1}));
}

TEST(InplaceThroughViews, ReshapedViewAndStridedSlice) {
  Tensor w = leaf_of({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor x = w * 1.0;
  Tensor flat = x.view({6}).slice(0, 0, 6, 2);
  mul_(flat, scalar_tensor(5.0));
  sum(x * x).backward();
  // Elements 0, 2 and 4 of the flat view were scaled: d(25 w^2)/dw = 50 w.
  EXPECT_EQ(values(w.grad()), (std::vector<float>{50, 4, 150, 8, 250, 12}));
}

TEST(InplaceThroughViews, ViewMadeBeforeAWriteToItsBaseSeesTheWrite) {
  Tensor w = leaf_of({1, 2, 3}, {3});
  Tensor x = w * 1.0;
  Tensor tail = x.slice(0, 1, 3);
  mul_(x, scalar_tensor(2.0));
  sum(tail).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<float>{0, 2, 2}));
}

TEST(InplaceThroughViews, ABaseWithoutHistoryGainsItFromTheWrite) {
  Tensor x = zeros({3});
  Tensor w = leaf_of({1, 2}, {2});
  x.slice(0, 0, 2).copy_(w * 2.0);
  EXPECT_TRUE(x.requires_grad());
  sum(x * x).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<float>{8, 16}));
}

TEST(InplaceThroughViews, ViewsOfLeavesAndNoGradViewsAreRefused) {
  Tensor w = leaf_of({1, 2}, {2});
  Tensor v = w.select(0, 0);
  expect_error([&] { v.fill_(0.0); }, ErrorKind::Runtime, "a view of a leaf Variable");
  Tensor x = w * 1.0;
  Tensor quiet;
  {
    autograd::NoGradGuard no_grad;
    quiet = x.select(0, 1);
  }
  expect_error([&] { mul_(quiet, scalar_tensor(2.0)); }, ErrorKind::Runtime, "created in no_grad mode");
  {
    autograd::NoGradGuard no_grad;
    v.fill_(7.0);  // initialising a parameter in place is what no_grad is for
  }
  EXPECT_EQ(values(w), (std::vector<float>{7, 2}));
}

TEST(InplaceOverwrite, FillAndZeroCutTheOldHistory) {
  Tensor w = leaf_of({0.5f, -1, 2}, {3});
  Tensor x = w * 3.0;
  x.fill_(0.0);
  sum(x + w).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<float>{1, 1, 1}));
}

TEST(InplaceForms, OutOfPlaceOpsStoredInPlaceKeepTheirSavedValues) {
  Tensor w = leaf_of({0.5f, -1, 2}, {3});
  Tensor x = w * 1.0;
  apply_inplace(
      x, [](const Tensor& t) { return sigmoid(t); }, "sigmoid");
  sum(x).backward();
  const std::vector<float> grad = values(w.grad());
  for (size_t i = 0; i < grad.size(); ++i) {
    const float s = 1.0f / (1.0f + std::exp(-values(w)[i]));
    EXPECT_NEAR(grad[i], s * (1 - s), 1e-6);
  }
}

TEST(InplaceForms, ResultTheTargetCannotHoldIsRefused) {
  Tensor i = tensor<int64_t>({1, 4});
  expect_error(
      [&] {
        apply_inplace(
            i, [](const Tensor& t) { return sqrt(t); }, "sqrt");
      },
      ErrorKind::Runtime, "can't be cast");
  EXPECT_EQ(i.tolist<int64_t>(), (std::vector<int64_t>{1, 4}));
}

TEST(Subgradients, NormAndPowerOfZeroAtZero) {
  Tensor x = zeros({3}).requires_grad_();
  norm(x, 2.0, {}, false).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<float>{0, 0, 0}));
  Tensor y = zeros({2}).requires_grad_();
  sum(pow(y, 0.0)).backward();
  EXPECT_EQ(values(y.grad()), (std::vector<float>{0, 0}));
  Tensor z = tensor<float>({3, -4, 0, 0}, {2, 2}).requires_grad_();
  sum(norm(z, 3.0, {1}, false)).backward();
  const std::vector<float> g = values(z.grad());
  EXPECT_EQ(g[2], 0);
  EXPECT_EQ(g[3], 0);
  EXPECT_FALSE(std::isnan(g[0]));
}

// Runs f on a thread with a 512 KiB stack, where a teardown or backward
// that recursed once per node of a 30000-op graph would overflow; returns
// whether f ran to the end.
bool completes_on_small_stack(void (*f)()) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 512 * 1024);
  pthread_t thread;
  const int started = pthread_create(
      &thread, &attr,
      [](void* fn) -> void* {
        reinterpret_cast<void (*)()>(fn)();
        return fn;
      },
      reinterpret_cast<void*>(f));
  pthread_attr_destroy(&attr);
  if (started != 0) return false;
  void* result = nullptr;
  pthread_join(thread, &result);
  return result != nullptr;
}

constexpr int kDeepGraph = 30000;

TEST(GraphTeardown, FreeingAVeryDeepGraphDoesNotRecurse) {
  EXPECT_TRUE(completes_on_small_stack([] {
    Tensor w = ones({2}).requires_grad_();
    Tensor total = zeros({});
    for (int i = 0; i < kDeepGraph; ++i) total = total + sum(w * 2.0);
    std::weak_ptr<autograd::Node> last = total.grad_fn();
    total = Tensor();
    EXPECT_TRUE(last.expired());
  }));
}

TEST(GraphTeardown, BackwardThroughALongChain) {
  EXPECT_TRUE(completes_on_small_stack([] {
    Tensor x = ones({2}).requires_grad_();
    Tensor y = x;
    for (int i = 0; i < kDeepGraph; ++i) y = y * 1.0;
    sum(y).backward();
    y = Tensor();
    EXPECT_EQ(values(x.grad()), (std::vector<float>{1, 1}));
  }));
}

TEST(Hooks, AHookMayNotChangeShapeOrDtypeAndCanBeRemoved) {
  Tensor w = leaf_of({1, 2}, {2});
  Tensor y = w * 1.0;
  autograd::register_hook(y, [](const Tensor& g) { return g.to(DType::Float64); });
  expect_error([&] { sum(y).backward(); }, ErrorKind::Runtime, "a hook on the gradient");
  Tensor z = w * 1.0;
  autograd::HookHandle handle = autograd::register_hook(z, [](const Tensor& g) { return g * 100.0; });
  handle.remove();
  handle.remove();
  sum(z).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<float>{1, 1}));
}

// backward returns whatever the test sets.
class Scripted : public autograd::CustomFunction {
 public:
  explicit Scripted(std::vector<Tensor> grads) : grads_(std::move(grads)) {}
  std::string name() const override { return "Scripted"; }
  std::vector<Tensor> forward(autograd::FunctionContext& ctx, const std::vector<Tensor>& inputs) override {
    Tensor out = inputs[0] * 2.0;
    ctx.save_for_backward({out});
    return {out};
  }
  std::vector<Tensor> backward(autograd::FunctionContext&, const std::vector<Tensor>&) override { return grads_; }

 private:
  std::vector<Tensor> grads_;
};

Tensor run_scripted(const Tensor& x, std::vector<Tensor> grads) {
  return autograd::apply_function(std::make_shared<Scripted>(std::move(grads)), {x})[0];
}

TEST(CustomFunction, GradientsAreValidatedAgainstTheInputs) {
  Tensor x = leaf_of({1, 2, 3}, {3});
  expect_error(
      [&] {
        sum(run_scripted(x, {ones({3}), ones({3})})).backward();
      },
      ErrorKind::Runtime, "incorrect number of gradients");
  expect_error([&] { sum(run_scripted(x, {ones({5})})).backward(); }, ErrorKind::Runtime,
               "invalid gradient at index 0 - got [5]");
  // A broadcast-shaped gradient is summed down and another dtype converted,
  // as PyTorch does.
  sum(run_scripted(x, {ones({2, 3}, DType::Float64)})).backward();
  EXPECT_EQ(x.grad().dtype(), DType::Float32);
  EXPECT_EQ(values(x.grad()), (std::vector<float>{2, 2, 2}));
}

TEST(CustomFunction, ASavedOutputDoesNotKeepItsNodeAlive) {
  Tensor x = leaf_of({1, 2}, {2});
  Tensor y = run_scripted(x, {ones({2})});
  std::weak_ptr<autograd::Node> node = y.grad_fn();
  y = Tensor();
  EXPECT_TRUE(node.expired());
}

TEST(NodeNames, FollowPyTorch) {
  Tensor w = leaf_of({1, 2}, {2});
  EXPECT_EQ((w * 2.0).grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(sum(w).grad_fn()->name(), "SumBackward0");
  EXPECT_EQ(w.view({2, 1}).grad_fn()->name(), "ViewBackward0");
  EXPECT_EQ(mse_loss(w, zeros({2})).grad_fn()->name(), "MseLossBackward0");
  EXPECT_EQ(norm(w, 2.0, {}, false).grad_fn()->name(), "LinalgVectorNormBackward0");
}

}  // namespace
}  // namespace ember
