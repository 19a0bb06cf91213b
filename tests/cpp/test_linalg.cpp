// The factorization primitives (ember/linalg.h) on the CPU plugin's LAPACK
// kernels: reconstructions, info outputs, empty and strided batches, the
// core's argument errors, and every derivative against finite differences
// (first order, and second order through create_graph).
#include <gtest/gtest.h>

#include <ember/autograd.h>
#include <ember/ember.h>
#include <ember/linalg.h>

#include "gradcheck.h"

namespace ember {
namespace {

using testing::gradcheck;
using testing::leaf;
using V = std::vector<Tensor>;

Tensor eye_of(int64_t n) {
  const Tensor i = arange(n, TensorOptions(DType::Int64));
  return eq(i.unsqueeze(1), i.unsqueeze(0)).to(DType::Float64);
}

Tensor well_conditioned(IntArrayRef shape, uint64_t seed) {
  return (leaf(shape, seed) + eye_of(shape[shape.size() - 1]) * 3.0).detach().requires_grad_();
}

void expect_close(const Tensor& a, const Tensor& b, double tol = 1e-10) {
  ASSERT_EQ(a.sizes(), b.sizes());
  const std::vector<double> x = a.contiguous().tolist<double>(), y = b.contiguous().tolist<double>();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], tol) << "element " << i;
}

TEST(Linalg, FactorizationsReconstructStridedBatches) {
  const Tensor a = leaf({2, 4, 3}, 1).detach();
  const Tensor square = well_conditioned({2, 3, 3}, 2).detach().transpose(-2, -1);  // not contiguous
  const linalg::QrResult qr = linalg::qr(a);
  expect_close(matmul(qr.Q, qr.R), a);
  const linalg::SvdResult svd = linalg::svd(a, false);
  expect_close(matmul(svd.U * svd.S.unsqueeze(-2), svd.Vh), a);
  const Tensor spd = matmul(square, square.transpose(-2, -1));
  const linalg::CholeskyResult chol = linalg::cholesky_ex(spd);
  expect_close(matmul(chol.L, chol.L.transpose(-2, -1)), spd);
  EXPECT_EQ(chol.info.tolist<int32_t>(), (std::vector<int32_t>{0, 0}));
  const linalg::EighResult eigh = linalg::eigh(spd);
  expect_close(matmul(eigh.eigenvectors * eigh.eigenvalues.unsqueeze(-2), eigh.eigenvectors.transpose(-2, -1)), spd);
  const Tensor b = leaf({2, 3, 2}, 3).detach();
  const Tensor upper = triu(square);
  expect_close(matmul(upper, linalg::solve_triangular(upper, b, true)), b);
}

TEST(Linalg, InfoNamesTheFailingMinorAndPivot) {
  const Tensor indefinite = tensor<double>({1, 0, 0, 0, -1, 0, 0, 0, 1}, {3, 3});
  EXPECT_EQ(linalg::cholesky_ex(indefinite).info.item<int32_t>(), 2);
  const Tensor singular = tensor<double>({1, 2, 2, 4}, {2, 2});
  const linalg::LuFactorResult lu = linalg::lu_factor_ex(singular);
  EXPECT_EQ(lu.info.item<int32_t>(), 2);
  EXPECT_EQ(lu.pivots.tolist<int32_t>(), (std::vector<int32_t>{2, 2}));
}

TEST(Linalg, EmptyBatchesAndMatrices) {
  const linalg::CholeskyResult empty_batch = linalg::cholesky_ex(zeros({0, 3, 3}, TensorOptions(DType::Float32)));
  EXPECT_EQ(empty_batch.L.sizes(), (DimVector{0, 3, 3}));
  EXPECT_EQ(empty_batch.info.sizes(), (DimVector{0}));
  const linalg::SvdResult svd = linalg::svd(zeros({3, 0}, TensorOptions(DType::Float64)));
  EXPECT_EQ(svd.S.sizes(), (DimVector{0}));
  expect_close(svd.U, eye_of(3));
  const linalg::QrResult qr = linalg::qr(zeros({2, 0}, TensorOptions(DType::Float64)), "complete");
  expect_close(qr.Q, eye_of(2));
  EXPECT_EQ(linalg::qr(ones({3, 2}), "r").Q.sizes(), (DimVector{0}));
}

TEST(Linalg, BadArgumentsNameTheOpAndShapes) {
  auto message_of = [](const auto& call) {
    try {
      call();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message_of([] {
              linalg::cholesky_ex(ones({2, 3}));
            }),
            "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(message_of([] { linalg::svd(ones({3})); }),
            "linalg.svd: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(message_of([] {
              linalg::qr(ones({2, 2}, TensorOptions(DType::Int64)));
            }),
            "linalg.qr: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(message_of([] {
              linalg::solve_triangular(ones({2, 2}), ones({3, 1}), true);
            }),
            "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)");
  EXPECT_EQ(message_of([] { linalg::eigh(ones({2, 2}), "X"); }), "Expected UPLO argument to be 'L' or 'U', but got X");
  try {
    linalg::lu_factor_ex(ones({2, 2}, TensorOptions(DType::Float16)));
    FAIL() << "float16 was factored";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotImplemented);
  }
}

TEST(Linalg, DerivativesMatchFiniteDifferences) {
  const Tensor square = well_conditioned({3, 3}, 10);
  gradcheck([](const V& v) { return linalg::lu_factor_ex(v[0]).LU; }, {square}, "lu_factor");
  gradcheck([](const V& v) { return linalg::cholesky_ex(matmul(v[0], v[0].transpose(0, 1))).L; }, {square}, "cholesky");
  gradcheck([](const V& v) { return linalg::solve_triangular(tril(v[0]), v[1], false); }, {square, leaf({3, 2}, 11)},
            "solve_triangular");
  gradcheck([](const V& v) { return linalg::solve_triangular(triu(v[0]), v[1], true, false, true); },
            {square, leaf({2, 3}, 12)}, "solve_triangular right, unit diagonal");
  const Tensor tall = leaf({4, 3}, 13);
  gradcheck(
      [](const V& v) {
        const linalg::QrResult r = linalg::qr(v[0]);
        return cat({(r.Q * r.Q).reshape({-1}), r.R.reshape({-1})}, 0);
      },
      {tall}, "qr");
  gradcheck(
      [](const V& v) {
        const linalg::EighResult r = linalg::eigh(v[0] + v[0].transpose(0, 1));
        return cat({r.eigenvalues, (r.eigenvectors * r.eigenvectors).reshape({-1})}, 0);
      },
      {square}, "eigh");
  gradcheck(
      [](const V& v) {
        const linalg::SvdResult r = linalg::svd(v[0], false);
        return cat({r.S, (r.U * r.U).reshape({-1}), (r.Vh * r.Vh).reshape({-1})}, 0);
      },
      {tall}, "svd");
}

// The backward factors again (Note [Factorization outputs under
// create_graph]), so its own gradient is not that of a constant. The gradient of
// sum(f^3) as a differentiable function of the input, grad mode on even
// while gradcheck's finite differences run.
testing::Fn cubed_gradient_of(testing::Fn f) {
  return [f](const V& inputs) {
    autograd::EnableGradGuard enable;
    const Tensor x = inputs[0].requires_grad() ? inputs[0] : inputs[0].detach().requires_grad_();
    const Tensor y = f({x});
    return autograd::grad({sum(y * y * y)}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  };
}

TEST(Linalg, SecondDerivativesMatchFiniteDifferences) {
  gradcheck(cubed_gradient_of([](const V& v) { return linalg::cholesky_ex(matmul(v[0], v[0].transpose(0, 1))).L; }),
            {well_conditioned({3, 3}, 20)}, "cholesky, second order");
  gradcheck(cubed_gradient_of([](const V& v) { return linalg::svd(v[0], false).S; }), {leaf({4, 3}, 21)},
            "svd values, second order");
  gradcheck(cubed_gradient_of([](const V& v) { return linalg::lu_factor_ex(v[0]).LU; }), {well_conditioned({3, 3}, 22)},
            "lu_factor, second order");
}

}  // namespace
}  // namespace ember
