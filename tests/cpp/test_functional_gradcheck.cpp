// Every differentiable composite of ember/functional.h against finite
// differences in float64, differentiated through its decomposition, plus
// second-order checks (the gradient itself recorded with create_graph) on a
// representative subset. Inputs keep clear of kinks (relu at 0, max ties).
#include <gtest/gtest.h>

#include <ember/autograd.h>
#include <ember/ember.h>

#include "gradcheck.h"

namespace ember {
namespace {

using testing::gradcheck;
using testing::leaf;
using V = std::vector<Tensor>;

const TensorOptions kF64(DType::Float64);

TEST(FunctionalGradcheck, SoftmaxFamilyAndReductions) {
  const Tensor x = leaf({2, 3}, 101, -2.0, 2.0);
  gradcheck([](const V& v) { return softmax(v[0], 1); }, {x}, "softmax dim 1");
  gradcheck([](const V& v) { return softmax(v[0], 0); }, {x}, "softmax dim 0");
  gradcheck([](const V& v) { return log_softmax(v[0], -1); }, {x}, "log_softmax");
  gradcheck([](const V& v) { return log_softmax(v[0].t(), 0); }, {x}, "log_softmax non-contiguous");
  gradcheck([](const V& v) { return logsumexp(v[0], {1}); }, {x}, "logsumexp");
  gradcheck([](const V& v) { return logsumexp(v[0], {0, 1}, true); }, {x}, "logsumexp all keepdim");
  const Tensor y = leaf({3, 4}, 102);
  gradcheck([](const V& v) { return var(v[0], {1}); }, {y}, "var dim");
  gradcheck([](const V& v) { return var(v[0], {}, 0); }, {y}, "var all correction 0");
  gradcheck([](const V& v) { return std(v[0], {0}, 1, true); }, {y}, "std keepdim");
  gradcheck([](const V& v) { return std(v[0].t()); }, {y}, "std non-contiguous");
  gradcheck([](const V& v) { return norm(v[0]); }, {y}, "norm 2");
  gradcheck([](const V& v) { return norm(v[0], 1, {1}); }, {y}, "norm 1");
  gradcheck([](const V& v) { return norm(v[0], INFINITY, {0}); }, {y}, "norm inf");
  gradcheck([](const V& v) { return norm(v[0], 3, {1}, true); }, {y}, "norm 3");
}

TEST(FunctionalGradcheck, Activations) {
  // Values in [-2, 2) from a continuous distribution: none sits within eps
  // of a kink (0 for relu, the clamp bounds).
  const Tensor x = leaf({3, 4}, 103, -2.0, 2.0);
  gradcheck([](const V& v) { return clamp(v[0], Scalar(-0.5), Scalar(0.7)); }, {x}, "clamp both");
  gradcheck([](const V& v) { return clamp(v[0], std::nullopt, Scalar(0.3)); }, {x}, "clamp max only");
  gradcheck([](const V& v) { return relu(v[0]); }, {x}, "relu");
  gradcheck([](const V& v) { return leaky_relu(v[0], 0.2); }, {x}, "leaky_relu");
  gradcheck([](const V& v) { return gelu(v[0]); }, {x}, "gelu erf");
  gradcheck([](const V& v) { return gelu(v[0], "tanh"); }, {x}, "gelu tanh");
  gradcheck([](const V& v) { return silu(v[0]); }, {x}, "silu");
  gradcheck([](const V& v) { return softplus(v[0]); }, {x}, "softplus");
  // beta * x above the threshold is the identity branch: both branches.
  gradcheck([](const V& v) { return softplus(v[0], 2, 1.5); }, {x}, "softplus beta/threshold");
  gradcheck([](const V& v) { return elu(v[0], 1.3); }, {x}, "elu");
  gradcheck([](const V& v) { return hardtanh(v[0], -0.6, 0.8); }, {x}, "hardtanh");
  gradcheck([](const V& v) { return relu(v[0].t()) * 2.0; }, {x}, "relu non-contiguous");
}

TEST(FunctionalGradcheck, LinearAndMatmul) {
  gradcheck([](const V& v) { return linear(v[0], v[1], v[2]); }, {leaf({3, 4}, 104), leaf({2, 4}, 105), leaf({2}, 106)},
            "linear with bias");
  gradcheck([](const V& v) { return linear(v[0], v[1]); }, {leaf({2, 3, 4}, 107), leaf({2, 4}, 108)},
            "linear 3-d, no bias");
  gradcheck([](const V& v) { return matmul(v[0], v[1]); }, {leaf({2, 1, 2, 3}, 109), leaf({3, 3, 2}, 110)},
            "matmul broadcast batch");
  gradcheck([](const V& v) { return matmul(v[0], v[1]); }, {leaf({3}, 111), leaf({3}, 112)}, "matmul dot");
  gradcheck([](const V& v) { return matmul(v[0], v[1]); }, {leaf({2, 3}, 113), leaf({3}, 114)}, "matmul mv");
  gradcheck([](const V& v) { return matmul(v[0], v[1]); }, {leaf({3}, 115), leaf({2, 3, 2}, 116)},
            "matmul vector @ batch");
  gradcheck([](const V& v) { return matmul(v[0].transpose(-1, -2), v[1]); }, {leaf({2, 3, 2}, 117), leaf({3, 2}, 118)},
            "matmul non-contiguous");
}

TEST(FunctionalGradcheck, ScaledDotProductAttention) {
  const V qkv = {leaf({2, 3, 4}, 190), leaf({2, 5, 4}, 191), leaf({2, 5, 3}, 192)};
  gradcheck([](const V& v) { return scaled_dot_product_attention(v[0], v[1], v[2]); }, qkv, "sdpa");
  gradcheck([](const V& v) { return scaled_dot_product_attention(v[0], v[1], v[2], std::nullopt, 0, false, 0.3); },
            qkv, "sdpa scale");
  gradcheck([](const V& v) { return scaled_dot_product_attention(v[0], v[1], v[2], v[3]); },
            {qkv[0], qkv[1], qkv[2], leaf({3, 5}, 193)}, "sdpa float mask, its gradient too");
  const Tensor keep = tensor<bool>({true, false, true, true, false, false, true, true, true, false, false, true,
                                    true, false, true},
                                   {3, 5});
  gradcheck([&](const V& v) { return scaled_dot_product_attention(v[0], v[1], v[2], keep); }, qkv, "sdpa bool mask");
  const V square = {leaf({1, 2, 4, 3}, 194), leaf({1, 2, 4, 3}, 195), leaf({1, 2, 4, 2}, 196)};
  gradcheck([](const V& v) { return scaled_dot_product_attention(v[0], v[1], v[2], std::nullopt, 0, true); }, square,
            "sdpa causal");
  gradcheck([](const V& v) {
              return scaled_dot_product_attention(v[0], v[1], v[2], std::nullopt, 0, false, std::nullopt, true);
            },
            {leaf({1, 4, 3, 2}, 197), leaf({1, 2, 5, 2}, 198), leaf({1, 2, 5, 2}, 199)}, "sdpa grouped query heads");
}

TEST(FunctionalGradcheck, Normalization) {
  gradcheck([](const V& v) { return layer_norm(v[0], {4}, v[1], v[2]); },
            {leaf({2, 3, 4}, 119), leaf({4}, 120), leaf({4}, 121)}, "layer_norm affine");
  gradcheck([](const V& v) { return layer_norm(v[0], {3, 4}); }, {leaf({2, 3, 4}, 122)}, "layer_norm 2 dims");
  gradcheck(
      [](const V& v) {
        Tensor rm = zeros({3}, kF64), rv = ones({3}, kF64);
        return batch_norm(v[0], rm, rv, v[1], v[2], /*training=*/true);
      },
      {leaf({4, 3, 2}, 123), leaf({3}, 124), leaf({3}, 125)}, "batch_norm training, running stats");
  gradcheck([](const V& v) { return batch_norm(v[0], std::nullopt, std::nullopt, std::nullopt, std::nullopt, true); },
            {leaf({5, 3}, 126)}, "batch_norm training, 2-d, no stats");
  gradcheck(
      [](const V& v) {
        return batch_norm(v[0], ones({3}, kF64) * 0.1, ones({3}, kF64) * 1.5, v[1], v[2], /*training=*/false);
      },
      {leaf({2, 3, 2}, 127), leaf({3}, 128), leaf({3}, 129)}, "batch_norm eval");
  gradcheck([](const V& v) { return group_norm(v[0], 2, v[1], v[2]); },
            {leaf({2, 4, 3}, 130), leaf({4}, 131), leaf({4}, 132)}, "group_norm affine");
  gradcheck([](const V& v) { return group_norm(v[0], 1); }, {leaf({2, 2, 2, 2}, 133)}, "group_norm one group 4-d");
}

TEST(FunctionalGradcheck, EmbeddingWeight) {
  const Tensor idx = tensor<int64_t>({4, 0, 2, 0, 4, 1}, {2, 3});  // repeats accumulate
  gradcheck([&](const V& v) { return embedding(v[0], idx); }, {leaf({5, 3}, 134)}, "embedding");
}

TEST(FunctionalGradcheck, ConvolutionWeightAndBias) {
  // The input is a constant here: the weight and bias paths.
  const Tensor x1 = leaf({2, 4, 7}, 135).detach();
  gradcheck([&](const V& v) { return conv1d(x1, v[0], v[1], {2}, {1}, {2}, 2); }, {leaf({6, 2, 3}, 136), leaf({6}, 137)},
            "conv1d stride/padding/dilation/groups (weight, bias)");
  const Tensor x2 = leaf({1, 2, 5, 5}, 138).detach();
  gradcheck([&](const V& v) { return conv2d(x2, v[0], v[1]); }, {leaf({3, 2, 3, 3}, 139), leaf({3}, 140)},
            "conv2d plain (weight, bias)");
  gradcheck([&](const V& v) { return conv2d(x2, v[0], std::nullopt, {2, 1}, {1, 2}, {1, 2}, 2); },
            {leaf({4, 1, 2, 3}, 141)}, "conv2d stride/padding/dilation/groups (weight)");
}

TEST(FunctionalGradcheck, ConvolutionInput) {
  gradcheck([](const V& v) { return conv1d(v[0], v[1], std::nullopt, {2}, {1}, {1}, 2); },
            {leaf({1, 4, 6}, 142), leaf({2, 2, 3}, 143)}, "conv1d input");
  gradcheck([](const V& v) { return conv2d(v[0], v[1], v[2], {2, 1}, {1, 2}, {1, 2}, 2); },
            {leaf({1, 2, 5, 5}, 144), leaf({4, 1, 2, 3}, 145), leaf({4}, 146)},
            "conv2d stride/padding/dilation/groups (input, weight, bias)");
}

TEST(FunctionalGradcheck, Pooling) {
  // Uniform random values: no ties inside a max window.
  const Tensor x = leaf({1, 2, 5, 6}, 147);
  gradcheck([](const V& v) { return max_pool2d(v[0], {2}); }, {x}, "max_pool2d");
  gradcheck([](const V& v) { return max_pool2d(v[0], {3, 2}, {2, 1}, {1, 1}, {1, 2}); }, {x},
            "max_pool2d stride/padding/dilation");
  gradcheck([](const V& v) { return avg_pool2d(v[0], {2, 3}); }, {x}, "avg_pool2d");
  gradcheck([](const V& v) { return avg_pool2d(v[0], {3}, {2}, {1}, true); }, {x}, "avg_pool2d count_include_pad");
  gradcheck([](const V& v) { return avg_pool2d(v[0], {3}, {2}, {1}, false); }, {x}, "avg_pool2d exclude pad");
  gradcheck([](const V& v) { return adaptive_avg_pool2d(v[0], {2, 4}); }, {x}, "adaptive_avg_pool2d");
  gradcheck([](const V& v) { return adaptive_avg_pool2d(v[0], {3}); }, {leaf({2, 4, 5}, 148)},
            "adaptive_avg_pool2d 3-d");
}

TEST(FunctionalGradcheck, ClassificationLosses) {
  const Tensor logits = leaf({4, 3}, 149, -2.0, 2.0);
  const Tensor target = tensor<int64_t>({2, 0, 1, 2});
  const Tensor ignored = tensor<int64_t>({2, -100, 1, 0});
  const Tensor class_weight = tensor<double>({0.5, 2.0, 1.0});
  gradcheck([&](const V& v) { return cross_entropy(v[0], target); }, {logits}, "cross_entropy indices");
  gradcheck([&](const V& v) { return cross_entropy(v[0], ignored, class_weight); }, {logits},
            "cross_entropy weight + ignore_index");
  gradcheck([&](const V& v) { return cross_entropy(v[0], target, std::nullopt, -100, "none", 0.1); }, {logits},
            "cross_entropy label smoothing, none");
  gradcheck([&](const V& v) { return cross_entropy(v[0], ignored, class_weight, -100, "mean", 0.2); }, {logits},
            "cross_entropy smoothing + weight + ignore");
  const Tensor probs = softmax(leaf({4, 3}, 150).detach(), 1);
  gradcheck([&](const V& v) { return cross_entropy(v[0], probs); }, {logits}, "cross_entropy probabilities");
  gradcheck([&](const V& v) { return cross_entropy(v[0], probs, std::nullopt, -100, "sum", 0.3); }, {logits},
            "cross_entropy probabilities + smoothing, sum");
  gradcheck([&](const V& v) { return cross_entropy(v[0], v[1]); }, {logits, leaf({4, 3}, 151, 0.0, 1.0)},
            "cross_entropy probabilities (target grad)");
  const Tensor spatial_target = tensor<int64_t>({0, 2, 1, 1, 2, 0, 0, 1}, {2, 2, 2});
  gradcheck([&](const V& v) { return cross_entropy(v[0], spatial_target); }, {leaf({2, 3, 2, 2}, 152)},
            "cross_entropy spatial");
  gradcheck([&](const V& v) { return nll_loss(log_softmax(v[0], 1), target); }, {logits}, "nll_loss");
  gradcheck([&](const V& v) { return nll_loss(v[0], ignored, class_weight, -100, "sum"); }, {logits},
            "nll_loss weight + ignore, sum");
}

TEST(FunctionalGradcheck, RegressionLosses) {
  const Tensor in = leaf({3, 4}, 153);
  const Tensor tgt = leaf({3, 4}, 154);
  gradcheck([](const V& v) { return mse_loss(v[0], v[1]); }, {in, tgt}, "mse_loss");
  gradcheck([](const V& v) { return mse_loss(v[0], v[1], "none"); }, {in, tgt}, "mse_loss none");
  gradcheck([](const V& v) { return l1_loss(v[0], v[1], "sum"); }, {in, tgt}, "l1_loss");
  gradcheck([](const V& v) { return smooth_l1_loss(v[0], v[1]); }, {in, tgt}, "smooth_l1_loss");
  gradcheck([](const V& v) { return smooth_l1_loss(v[0], v[1], "none", 0.4); }, {in, tgt}, "smooth_l1_loss beta");
  const Tensor p = leaf({3, 4}, 155, 0.1, 0.9);
  const Tensor y = leaf({3, 4}, 156, 0.0, 1.0);
  gradcheck([](const V& v) { return binary_cross_entropy(v[0], v[1]); }, {p, y}, "binary_cross_entropy");
  gradcheck([](const V& v) { return binary_cross_entropy(v[0], v[1], v[2], "sum"); }, {p, y, leaf({3, 4}, 157, 0.5, 2.0)},
            "binary_cross_entropy weight");
  const Tensor z = leaf({3, 4}, 158, -3.0, 3.0);
  gradcheck([](const V& v) { return binary_cross_entropy_with_logits(v[0], v[1]); }, {z, y},
            "binary_cross_entropy_with_logits");
  gradcheck(
      [](const V& v) { return binary_cross_entropy_with_logits(v[0], v[1], v[2], "none", v[3]); },
      {z, y, leaf({4}, 159, 0.5, 2.0), leaf({4}, 160, 0.5, 3.0)}, "binary_cross_entropy_with_logits weight + pos_weight");
}

TEST(FunctionalGradcheck, ShapeAndSelection) {
  const Tensor x = leaf({3, 4}, 161);
  const Tensor mask = gt(leaf({3, 4}, 162).detach(), 0.0);
  gradcheck([&](const V& v) { return masked_fill(v[0], mask, 2.5); }, {x}, "masked_fill");
  gradcheck([&](const V& v) { return masked_fill(v[0], mask.slice(0, 0, 1), -1.0); }, {x}, "masked_fill broadcast");
  gradcheck([&](const V& v) { return where(mask, v[0], 0.5); }, {x}, "where tensor/scalar");
  gradcheck([](const V& v) { return stack({v[0], v[1] * 2.0, v[0].t().t()}, 1); }, {x, leaf({3, 4}, 163)}, "stack");
  gradcheck(
      [](const V& v) {
        const std::vector<Tensor> parts = split(v[0], 3, 1);  // sizes 3, 1
        return cat({parts[1] * 3.0, parts[0]}, 1);
      },
      {x}, "split size");
  gradcheck(
      [](const V& v) {
        const std::vector<Tensor> parts = split(v[0], {1, 2}, 0);
        return parts[1] * parts[1] + sum(parts[0]);
      },
      {x}, "split sizes");
  gradcheck(
      [](const V& v) {
        const std::vector<Tensor> parts = chunk(v[0], 2, 1);
        return parts[0] * parts[1];
      },
      {x}, "chunk");
  gradcheck([](const V& v) { return flip(v[0], {0, 1}); }, {x}, "flip");
  gradcheck([](const V& v) { return flip(v[0].t(), {1}); }, {x}, "flip non-contiguous");
  gradcheck([](const V& v) { return roll(v[0], {1, -2}, {0, 1}); }, {x}, "roll dims");
  gradcheck([](const V& v) { return roll(v[0], {5}); }, {x}, "roll flattened");
  gradcheck([](const V& v) { return tril(v[0]); }, {x}, "tril");
  gradcheck([](const V& v) { return triu(v[0], 1); }, {x}, "triu diagonal 1");
  gradcheck([](const V& v) { return tril(v[0], -1).t(); }, {x}, "tril diagonal -1");
}

TEST(FunctionalGradcheck, AdvancedIndexing) {
  const Tensor x = leaf({3, 4}, 164);
  const Tensor rows = tensor<int64_t>({2, 0, 2});
  const Tensor cols = tensor<int64_t>({1, -1}, {2, 1});
  const Tensor mask = gt(leaf({3, 4}, 165).detach(), 0.0);
  gradcheck([&](const V& v) { return index(v[0], {rows}); }, {x}, "index repeated rows");
  gradcheck([&](const V& v) { return index(v[0], {rows, cols}); }, {x}, "index broadcast pair");
  gradcheck([&](const V& v) { return index(v[0].t(), {std::nullopt, rows}); }, {x}, "index non-contiguous");
  gradcheck([&](const V& v) { return index(v[0], {mask}); }, {x}, "index bool mask");
  gradcheck([&](const V& v) { return index_put(v[0], {rows}, v[1], true); }, {x, leaf({4}, 166)},
            "index_put accumulate broadcast values");
  gradcheck([&](const V& v) { return index_put(v[0].t(), {std::nullopt, rows}, v[1]); }, {x, leaf({4, 3}, 167)},
            "index_put overwrite non-contiguous");
}

TEST(FunctionalGradcheck, ScanAndSort) {
  const Tensor x = leaf({3, 4}, 164);
  gradcheck([](const V& v) { return cumsum(v[0], 1); }, {x}, "cumsum dim 1");
  gradcheck([](const V& v) { return cumsum(v[0], 0); }, {x}, "cumsum dim 0");
  gradcheck([](const V& v) { return cumsum(v[0].t(), 1); }, {x}, "cumsum non-contiguous");
  // Uniform random values: no ties, so sort's permutation is locally fixed.
  gradcheck([](const V& v) { return sort(v[0], 1).values; }, {x}, "sort values");
  gradcheck([](const V& v) { return sort(v[0], 0, /*descending=*/true).values; }, {x}, "sort descending dim 0");
  gradcheck([](const V& v) { return topk(v[0], 2, 1).values; }, {x}, "topk values");
  gradcheck([](const V& v) { return topk(v[0], 2, 0, /*largest=*/false).values; }, {x}, "topk smallest dim 0");
}

// --- second order: gradcheck of the gradient, recorded with create_graph.

// The flattened gradients of sum(f(inputs) * w) with respect to every input,
// as a differentiable function of the inputs.
testing::Fn gradient_of(testing::Fn f, uint64_t seed) {
  return [f, seed](const V& inputs) {
    autograd::EnableGradGuard enable;
    V xs;
    for (const Tensor& x : inputs) xs.push_back(x.requires_grad() ? x : x.detach().requires_grad_());
    const Tensor y = f(xs);
    manual_seed(seed);
    const Tensor w = rand(y.sizes(), kF64) + 0.5;
    const V grads = autograd::grad({sum(y * w)}, xs, {}, /*retain_graph=*/true, /*create_graph=*/true);
    V flat;
    for (const Tensor& g : grads) flat.push_back(g.reshape({-1}));
    return cat(flat, 0);
  };
}

TEST(FunctionalGradcheck, SecondOrder) {
  gradcheck(gradient_of([](const V& v) { return tanh(v[0]); }, 1), {leaf({2, 3}, 166)}, "tanh'");
  gradcheck(gradient_of([](const V& v) { return v[0] * v[1] * v[0]; }, 2), {leaf({2, 3}, 167), leaf({3}, 168)},
            "mul'");
  gradcheck(gradient_of([](const V& v) { return tanh(mm(v[0], v[1])); }, 3), {leaf({2, 3}, 169), leaf({3, 2}, 170)},
            "mm'");
  gradcheck(gradient_of([](const V& v) { return softmax(v[0], 1); }, 4), {leaf({2, 3}, 171)}, "softmax'");
  gradcheck(gradient_of([](const V& v) { return layer_norm(v[0], {3}, v[1], v[2]); }, 5),
            {leaf({2, 3}, 172), leaf({3}, 173), leaf({3}, 174)}, "layer_norm'");
  const Tensor target = tensor<int64_t>({2, 0, 1});
  gradcheck(gradient_of([&](const V& v) { return cross_entropy(v[0] * v[0], target, std::nullopt, -100, "sum", 0.1); }, 6),
            {leaf({3, 4}, 175)}, "cross_entropy'");
  gradcheck(gradient_of([](const V& v) { return avg_pool2d(v[0] * v[0], {2}, {1}, {1}, false); }, 7),
            {leaf({1, 2, 3, 3}, 176)}, "avg_pool2d'");
  gradcheck(gradient_of([](const V& v) { return max_pool2d(v[0] * v[0], {2}, {1}); }, 8), {leaf({1, 1, 3, 3}, 177)},
            "max_pool2d'");
}

}  // namespace
}  // namespace ember
