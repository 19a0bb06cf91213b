// Op cases of the factorizations (Note [Op cases]). Inputs are drawn N(0, 1)
// and made well-conditioned inside each call (a shifted diagonal, X X^T for
// positive-definite); outputs whose signs a backend may choose (the columns
// of Q, eigenvectors, singular vectors) are compared as their squares, which
// every correct factorization shares.
#include <ember/functional.h>
#include <ember/linalg.h>
#include <ember/ops.h>

#include "op_case.h"

namespace ember::conformance {

namespace {

std::vector<DType> lapack_dtypes() { return {DType::Float32, DType::Float64}; }

Tensor identity_like(const Tensor& a) {
  const Tensor i = arange(a.size(-1), TensorOptions(DType::Int64, a.device()));
  return eq(i.unsqueeze(1), i.unsqueeze(0)).to(a.dtype());
}

Tensor shifted(const Tensor& a) { return a + identity_like(a) * static_cast<double>(a.size(-1)); }

Tensor positive_definite(const Tensor& a) { return shifted(matmul(a, a.transpose(-2, -1))); }

OpCase cholesky_case() {
  const OpCall call = [](const Tensors& in, DType, Device) {
    const linalg::CholeskyResult r = linalg::cholesky_ex(positive_definite(in[0]));
    return Tensors{r.L, r.info};
  };
  return {"linalg_cholesky_ex",
          lapack_dtypes(),
          {
              {"3x3", {{.shape = {3, 3}}}, call, 10, true},
              {"batched, transposed", {{.shape = {2, 4, 4}, .view = transposed}}, call, 10},
              {"empty batch", {{.shape = {0, 2, 2}}}, call},
          }};
}

OpCase lu_factor_case() {
  const OpCall call = [](const Tensors& in, DType, Device) {
    const linalg::LuFactorResult r = linalg::lu_factor_ex(shifted(in[0]));
    return Tensors{r.LU, r.pivots, r.info};
  };
  const OpCall rectangular = [](const Tensors& in, DType, Device) {
    const linalg::LuFactorResult r = linalg::lu_factor_ex(in[0]);
    return Tensors{r.LU, r.pivots};
  };
  return {"linalg_lu_factor_ex",
          lapack_dtypes(),
          {
              {"4x4", {{.shape = {4, 4}}}, call, 10, true},
              {"batched, transposed", {{.shape = {3, 3, 3}, .view = transposed}}, call, 10},
              {"wide", {{.shape = {2, 5}}}, rectangular, 10},
          }};
}

OpCase solve_triangular_case() {
  auto solve = [](bool upper, bool unitriangular) {
    return [=](const Tensors& in, DType, Device) {
      const Tensor a = upper ? triu(shifted(in[0])) : tril(shifted(in[0]));
      return Tensors{linalg::solve_triangular(a, in[1], upper, true, unitriangular)};
    };
  };
  return {"linalg_solve_triangular",
          lapack_dtypes(),
          {
              {"upper", {{.shape = {4, 4}}, {.shape = {4, 2}}}, solve(true, false), 10, true},
              {"lower, unit diagonal", {{.shape = {3, 3}}, {.shape = {3, 3}}}, solve(false, true), 10, true},
              {"batched, transposed",
               {{.shape = {2, 3, 3}, .view = transposed}, {.shape = {2, 3, 1}}},
               solve(false, false),
               10},
          }};
}

OpCase qr_case() {
  auto qr_of = [](const char* mode) {
    return [mode](const Tensors& in, DType, Device) {
      const linalg::QrResult r = linalg::qr(in[0], mode);
      if (r.Q.numel() == 0) return Tensors{r.R * r.R};
      return Tensors{r.Q * r.Q, r.R * r.R, matmul(r.Q, r.R)};
    };
  };
  return {"linalg_qr",
          lapack_dtypes(),
          {
              {"tall, reduced", {{.shape = {5, 3}}}, qr_of("reduced"), 10, true},
              {"wide, complete", {{.shape = {2, 3, 4}}}, qr_of("complete"), 10},
              {"R only", {{.shape = {4, 4}, .view = transposed}}, qr_of("r"), 10},
          }};
}

OpCase eigh_case() {
  const OpCall call = [](const Tensors& in, DType, Device) {
    const linalg::EighResult r = linalg::eigh(in[0] + in[0].transpose(-2, -1));
    return Tensors{r.eigenvalues, r.eigenvectors * r.eigenvectors};
  };
  return {"linalg_eigh",
          lapack_dtypes(),
          {
              {"4x4", {{.shape = {4, 4}}}, call, 10, true},
              {"batched", {{.shape = {2, 3, 3}}}, call, 10},
          }};
}

OpCase svd_case() {
  auto svd_of = [](bool full) {
    return [full](const Tensors& in, DType, Device) {
      const linalg::SvdResult r = linalg::svd(in[0], full);
      return Tensors{r.U * r.U, r.S, r.Vh * r.Vh};
    };
  };
  return {"linalg_svd",
          lapack_dtypes(),
          {
              {"tall, reduced", {{.shape = {5, 3}}}, svd_of(false), 10, true},
              {"wide, full", {{.shape = {2, 3, 4}}}, svd_of(true), 10},
          }};
}

}  // namespace

std::vector<OpCase> linalg_cases() {
  return {cholesky_case(), lu_factor_case(), solve_triangular_case(), qr_case(), eigh_case(), svd_case()};
}

}  // namespace ember::conformance
