// Every differentiable primitive and view against finite differences.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include "gradcheck.h"

namespace ember {
namespace {

using testing::gradcheck;
using testing::leaf;
using V = std::vector<Tensor>;

TEST(Gradcheck, UnaryPrimitives) {
  const Tensor x = leaf({2, 3}, 1);
  const Tensor pos = leaf({2, 3}, 2, 0.5, 2.0);
  gradcheck([](const V& v) { return neg(v[0]); }, {x}, "neg");
  gradcheck([](const V& v) { return abs(v[0]); }, {x}, "abs");
  gradcheck([](const V& v) { return exp(v[0]); }, {x}, "exp");
  gradcheck([](const V& v) { return expm1(v[0]); }, {x}, "expm1");
  gradcheck([](const V& v) { return log(v[0]); }, {pos}, "log");
  gradcheck([](const V& v) { return log1p(v[0]); }, {pos}, "log1p");
  gradcheck([](const V& v) { return sqrt(v[0]); }, {pos}, "sqrt");
  gradcheck([](const V& v) { return rsqrt(v[0]); }, {pos}, "rsqrt");
  gradcheck([](const V& v) { return sin(v[0]); }, {x}, "sin");
  gradcheck([](const V& v) { return cos(v[0]); }, {x}, "cos");
  gradcheck([](const V& v) { return tan(v[0]); }, {x}, "tan");
  gradcheck([](const V& v) { return tanh(v[0]); }, {x}, "tanh");
  gradcheck([](const V& v) { return sigmoid(v[0]); }, {x}, "sigmoid");
  gradcheck([](const V& v) { return erf(v[0]); }, {x}, "erf");
  gradcheck([](const V& v) { return erfc(v[0]); }, {x}, "erfc");
  gradcheck([](const V& v) { return erfinv(v[0] * 0.9); }, {x}, "erfinv");
  gradcheck([](const V& v) { return asin(v[0] * 0.9); }, {x}, "asin");
  gradcheck([](const V& v) { return acos(v[0] * 0.9); }, {x}, "acos");
  gradcheck([](const V& v) { return atan(v[0] * 3.0); }, {x}, "atan");
  gradcheck([](const V& v) { return lgamma(v[0]); }, {pos}, "lgamma");
  gradcheck([](const V& v) { return lgamma(v[0] * 0.4 - 2.5); }, {x}, "lgamma of negative non-integers");
  gradcheck([](const V& v) { return digamma(v[0]); }, {pos}, "digamma");
  gradcheck([](const V& v) { return digamma(v[0] * 0.4 - 2.5); }, {x}, "digamma of negative non-integers");
  gradcheck([](const V& v) { return reciprocal(v[0]); }, {pos}, "reciprocal");
  gradcheck([](const V& v) { return floor(v[0]) + v[0]; }, {x}, "floor");
}

TEST(Gradcheck, BinaryPrimitivesWithBroadcasting) {
  const Tensor a = leaf({3, 1}, 3);
  const Tensor b = leaf({4}, 4, 0.5, 2.0);
  const Tensor pos = leaf({3, 1}, 5, 0.5, 2.0);
  gradcheck([](const V& v) { return add(v[0], v[1]); }, {a, b}, "add");
  gradcheck([](const V& v) { return sub(v[0], v[1]); }, {a, b}, "sub");
  gradcheck([](const V& v) { return mul(v[0], v[1]); }, {a, b}, "mul");
  gradcheck([](const V& v) { return div(v[0], v[1]); }, {a, b}, "div");
  gradcheck([](const V& v) { return pow(v[0], v[1]); }, {pos, b}, "pow");
  gradcheck([](const V& v) { return maximum(v[0], v[1]); }, {a, b}, "maximum");
  gradcheck([](const V& v) { return minimum(v[0], v[1]); }, {a, b}, "minimum");
  gradcheck([](const V& v) { return atan2(v[0], v[1]); }, {a, b}, "atan2");
  gradcheck([](const V& v) { return remainder(v[0], v[1]); }, {pos, b}, "remainder");
  gradcheck([](const V& v) { return v[0] * 3.0 - 2.0 / v[1]; }, {a, b}, "scalar operands");
  gradcheck([](const V& v) { return where(gt(v[0], 0.0), v[0], v[1]); }, {a, b}, "where");
}

TEST(Gradcheck, Reductions) {
  const Tensor x = leaf({2, 3, 4}, 6);
  gradcheck([](const V& v) { return sum(v[0]); }, {x}, "sum all");
  gradcheck([](const V& v) { return sum(v[0], {0, 2}); }, {x}, "sum dims");
  gradcheck([](const V& v) { return mean(v[0], {1}, true); }, {x}, "mean keepdim");
  gradcheck([](const V& v) { return prod(v[0], {2}); }, {x}, "prod");
  gradcheck([](const V& v) { return amax(v[0], {1}); }, {x}, "amax");
  gradcheck([](const V& v) { return amin(v[0]); }, {x}, "amin");
  gradcheck([](const V& v) { return max(v[0], 2).values; }, {x}, "max(dim)");
}

TEST(Gradcheck, MatrixProducts) {
  gradcheck([](const V& v) { return mm(v[0], v[1]); }, {leaf({3, 4}, 7), leaf({4, 2}, 8)}, "mm");
  gradcheck([](const V& v) { return mm(v[0].t(), v[1]); }, {leaf({4, 3}, 9), leaf({4, 2}, 10)}, "mm transposed");
  gradcheck([](const V& v) { return bmm(v[0], v[1]); }, {leaf({2, 3, 4}, 11), leaf({2, 4, 2}, 12)}, "bmm");
}

TEST(Gradcheck, IndexingAndJoining) {
  const Tensor x = leaf({4, 3}, 13);
  const Tensor idx = tensor<int64_t>({2, 0, 2});
  const Tensor gather_idx = tensor<int64_t>({0, 2, 1, 1, 0, 0}, {2, 3});
  gradcheck([&](const V& v) { return index_select(v[0], 0, idx); }, {x}, "index_select");
  gradcheck([&](const V& v) { return index_select(v[0], 1, idx); }, {x}, "index_select dim 1");
  gradcheck([&](const V& v) { return gather(v[0], 0, gather_idx); }, {x}, "gather");
  gradcheck([&](const V& v) { return scatter_add(v[0], 0, gather_idx, v[1]); }, {x, leaf({2, 3}, 14)}, "scatter_add");
  gradcheck([](const V& v) { return cat({v[0], v[1]}, 1); }, {x, leaf({4, 2}, 15)}, "cat");
  gradcheck([](const V& v) { return cumsum(v[0], 0); }, {x}, "cumsum");
  gradcheck([](const V& v) { return sort(v[0], 1, true).values; }, {x}, "sort");
}

TEST(Gradcheck, ViewsAndConversions) {
  const Tensor x = leaf({2, 3, 4}, 16);
  gradcheck([](const V& v) { return v[0].permute({2, 0, 1}) * 2.0; }, {x}, "permute");
  gradcheck([](const V& v) { return v[0].transpose(0, 2).reshape({4, 6}); }, {x}, "transpose+reshape copy");
  gradcheck([](const V& v) { return v[0].view({6, 4}); }, {x}, "view");
  gradcheck([](const V& v) { return v[0].slice(2, 1, 4, 2); }, {x}, "slice step");
  gradcheck([](const V& v) { return v[0].select(1, -1); }, {x}, "select");
  gradcheck([](const V& v) { return v[0].narrow(0, 1, 1).squeeze(0).unsqueeze(-1); }, {x}, "narrow/squeeze");
  gradcheck([](const V& v) { return v[0].slice(0, 0, 1).expand({3, 3, 4}); }, {x}, "expand");
  gradcheck([](const V& v) { return v[0].to(DType::Float32).to(DType::Float64) * v[0]; }, {x}, "to dtype", 1e-3, 1e-3);
  gradcheck([](const V& v) { return v[0].flatten().clone(); }, {x}, "clone");
  gradcheck([](const V& v) { return v[0].as_strided({3, 2}, {2, 5}, 3); }, {x}, "as_strided");
  gradcheck([](const V& v) { return v[0].t().as_strided({2, 3}, {1, 2}); }, {leaf({2, 4}, 17)}, "as_strided of a transpose");
}

}  // namespace
}  // namespace ember
