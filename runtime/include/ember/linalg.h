#pragma once

#include <string_view>

#include "ember/tensor.h"

// The linear-algebra primitives of the catalogue (sdk/docs/ops.md "Linear
// algebra"), torch.linalg's spellings. Each takes a batch of matrices (every
// dim but the last two), float32 or float64; the rest of torch.linalg
// (solve, inv, det, lstsq, ...) is composed of these in ember.linalg.
namespace ember::linalg {

// A = L L^T for symmetric positive-definite A; info[b] = 0, or the order of
// the leading minor of batch element b that is not positive-definite.
struct CholeskyResult {
  Tensor L, info;
};
CholeskyResult cholesky_ex(const Tensor& A);

// A = P L U with partial pivoting: LU packs L (unit diagonal, below) and U;
// pivots [..., min(m, n)] int32 are LAPACK's 1-based row swaps; info[b] = 0,
// or the 1-based index of the first zero on U's diagonal.
struct LuFactorResult {
  Tensor LU, pivots, info;
};
LuFactorResult lu_factor_ex(const Tensor& A);

// X with A X = B for triangular A [..., n, n] and B [..., n, k]; batch dims
// broadcast. left=false solves X A = B.
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);

// mode "reduced" (Q [m, k], R [k, n]), "complete" (Q [m, m], R [m, n]) or
// "r" (R [k, n] and an empty Q), k = min(m, n).
struct QrResult {
  Tensor Q, R;
};
QrResult qr(const Tensor& A, std::string_view mode = "reduced");

// Eigenvalues (ascending) and orthonormal eigenvectors of the symmetric
// matrix whose lower (UPLO "L") or upper ("U") triangle A holds.
struct EighResult {
  Tensor eigenvalues, eigenvectors;
};
EighResult eigh(const Tensor& A, std::string_view UPLO = "L");

// A = U diag(S) Vh, S descending; full_matrices gives square U and Vh.
struct SvdResult {
  Tensor U, S, Vh;
};
SvdResult svd(const Tensor& A, bool full_matrices = true);

}  // namespace ember::linalg
