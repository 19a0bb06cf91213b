// Derivatives of the factorizations (sdk/docs/ops.md "Linear algebra"),
// the real cases of PyTorch's formulas (FunctionsManual.cpp): each reads the
// op's outputs (Note [Derivatives that read outputs]).
//
// Note [Factorization outputs under create_graph]
// The saved outputs are detached, so a backward built from them would be a
// constant to a second differentiation. When the backward itself is being
// recorded (create_graph), it factors the saved input again instead, so the
// outputs it uses carry their own history and higher derivatives are right.
#include <string>
#include <vector>

#include "autograd/derivatives.h"
#include "dispatch/dispatcher.h"
#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/functional.h"
#include "ember/linalg.h"
#include "ember/ops.h"

namespace ember::autograd {
namespace {

using dispatch::OpCall;
using Grads = std::vector<Tensor>;

Tensor mT(const Tensor& x) { return x.transpose(-2, -1); }

Tensor identity(int64_t n, const Tensor& like) {
  const Tensor i = arange(n, TensorOptions(DType::Int64, like.device()));
  return eq(i.unsqueeze(1), i.unsqueeze(0)).to(like.dtype());
}

Tensor diag_embed(const Tensor& v) { return v.unsqueeze(-1) * identity(v.size(-1), v); }

Tensor zero_diagonal(const Tensor& x) { return x - x * identity(x.size(-1), x); }

Tensor or_zeros(const Tensor& g, const Tensor& like) { return g.defined() ? g : zeros_like(like); }

// X R^{-1} for upper-triangular R (or X L^{-1} for lower), by the transposed
// left solve.
Tensor solve_right(const Tensor& X, const Tensor& T, bool upper, bool unitriangular = false) {
  return linalg::solve_triangular(T, X, upper, /*left=*/false, unitriangular);
}

// The op's outputs, from `saved` after its `num_inputs` inputs, or recomputed
// (Note [Factorization outputs under create_graph]).
template <class Recompute>
Grads outputs_of(const Grads& saved, size_t num_inputs, size_t num_outputs, const Recompute& recompute) {
  if (is_grad_enabled()) return recompute();
  return Grads(saved.begin() + static_cast<std::ptrdiff_t>(num_inputs),
               saved.begin() + static_cast<std::ptrdiff_t>(num_inputs + num_outputs));
}

// The permutation matrix P of A = P L U, from LAPACK's 1-based row swaps.
Tensor permutation_from_pivots(const Tensor& pivots, int64_t n, const Tensor& like) {
  const Tensor host = pivots.to(Device("cpu")).contiguous();
  const int32_t* swaps = host.data<int32_t>();
  const int64_t batches = host.numel() / std::max<int64_t>(1, host.size(-1));
  std::vector<int64_t> rows_of(static_cast<size_t>(batches * n));
  for (int64_t b = 0; b < batches; ++b) {
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
    for (int64_t i = 0; i < host.size(-1); ++i)
      std::swap(order[static_cast<size_t>(i)], order[swaps[b * host.size(-1) + i] - 1]);
    // Row i of L U is row order[i] of A, so P has a one at (order[i], i).
    for (int64_t i = 0; i < n; ++i) rows_of[static_cast<size_t>(b * n + order[static_cast<size_t>(i)])] = i;
  }
  DimVector shape(IntArrayRef(pivots.sizes().begin(), static_cast<size_t>(pivots.dim() - 1)));
  shape.push_back(n);
  const Tensor columns = tensor(rows_of, shape, TensorOptions(DType::Int64, like.device()));
  const Tensor i = arange(n, TensorOptions(DType::Int64, like.device()));
  return eq(columns.unsqueeze(-1), i).to(like.dtype());
}

}  // namespace

BackwardFn d_linalg_cholesky(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  return [](const Grads& grads, const Grads& in) {
    if (!grads[0].defined()) return Grads{Tensor()};
    const Tensor L = outputs_of(in, 1, 2, [&] { return Grads{linalg::cholesky_ex(in[0]).L}; })[0];
    // gA = L^{-T} Phi(L^T gL) L^{-1}, Phi the lower triangle with its diagonal halved, symmetrized.
    const Tensor product = tril(matmul(mT(L), grads[0]));
    const Tensor phi = product - 0.5 * product * identity(L.size(-1), L);
    const Tensor inner = linalg::solve_triangular(mT(L), phi, /*upper=*/true);
    const Tensor gA = solve_right(inner, L, /*upper=*/false);
    return Grads{0.5 * (gA + mT(gA))};
  };
}

BackwardFn d_linalg_lu_factor(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  return [](const Grads& grads, const Grads& in) {
    if (!grads[0].defined()) return Grads{Tensor()};
    const Tensor& A = in[0];
    const int64_t n = A.size(-1);
    if (A.size(-2) != n) {
      throw_error(ErrorKind::NotImplemented,
                  "linalg.lu_factor: the derivative is implemented for square matrices, got " +
                      std::to_string(A.size(-2)) + " by " + std::to_string(n) + " matrices");
    }
    const Grads out = outputs_of(in, 1, 3, [&] {
      const linalg::LuFactorResult r = linalg::lu_factor_ex(A);
      return Grads{r.LU, r.pivots};
    });
    const Tensor L = tril(out[0], -1) + identity(n, A), U = triu(out[0]);
    const Tensor gL = tril(grads[0], -1), gU = triu(grads[0]);
    // gA = P L^{-T} [tril(L^T gL, -1) + triu(gU U^T)] U^{-T}
    const Tensor middle = tril(matmul(mT(L), gL), -1) + triu(matmul(gU, mT(U)));
    const Tensor left = linalg::solve_triangular(mT(L), middle, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
    const Tensor gA = solve_right(left, mT(U), /*upper=*/false);
    return Grads{matmul(permutation_from_pivots(out[1], n, A), gA)};
  };
}

BackwardFn d_linalg_solve_triangular(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  saved.push_back(c.inputs[1]);
  const bool upper = c.attr_int("linalg_solve_triangular", "upper") != 0;
  const bool unit = c.attr_int("linalg_solve_triangular", "unitriangular") != 0;
  return [upper, unit](const Grads& grads, const Grads& in) {
    if (!grads[0].defined()) return Grads{Tensor(), Tensor()};
    const Tensor& A = in[0];
    const Tensor X = is_grad_enabled() ? linalg::solve_triangular(A, in[1], upper, true, unit) : in[2];
    const Tensor gB = linalg::solve_triangular(mT(A), grads[0], !upper, true, unit);
    const Tensor gA = neg(matmul(gB, mT(X)));
    const int64_t off_diagonal = unit ? 1 : 0;
    return Grads{upper ? triu(gA, off_diagonal) : tril(gA, -off_diagonal), gB};
  };
}

BackwardFn d_linalg_qr(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const int64_t mode = c.attr_int("linalg_qr", "mode");
  return [mode](const Grads& grads, const Grads& in) {
    if (!grads[0].defined() && !grads[1].defined()) return Grads{Tensor()};
    const Tensor& A = in[0];
    if (mode == 2) {
      throw_error(ErrorKind::Runtime,
                  "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                  "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    }
    if (A.size(-2) < A.size(-1) || (mode == 1 && A.size(-2) > A.size(-1))) {
      throw_error(ErrorKind::NotImplemented,
                  "linalg.qr: the derivative is implemented for matrices with at least as many rows as columns in "
                  "reduced mode, got " +
                      std::to_string(A.size(-2)) + " by " + std::to_string(A.size(-1)));
    }
    const Grads out = outputs_of(in, 1, 2, [&] {
      const linalg::QrResult r = linalg::qr(A, "reduced");
      return Grads{r.Q, r.R};
    });
    const Tensor &Q = out[0], &R = out[1];
    const Tensor gQ = or_zeros(grads[0], Q), gR = or_zeros(grads[1], R);
    // gA = (gQ + Q copyltu(M)) R^{-T}, M = R gR^T - gQ^T Q, copyltu(M) the
    // symmetric matrix with M's lower triangle.
    const Tensor M = matmul(R, mT(gR)) - matmul(mT(gQ), Q);
    const Tensor copyltu = tril(M) + mT(tril(M, -1));
    return Grads{solve_right(gQ + matmul(Q, copyltu), mT(R), /*upper=*/false)};
  };
}

BackwardFn d_linalg_eigh(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const bool upper = c.attr_int("linalg_eigh", "upper") != 0;
  return [upper](const Grads& grads, const Grads& in) {
    if (!grads[0].defined() && !grads[1].defined()) return Grads{Tensor()};
    const Grads out = outputs_of(in, 1, 2, [&] {
      const linalg::EighResult r = linalg::eigh(in[0], upper ? "U" : "L");
      return Grads{r.eigenvalues, r.eigenvectors};
    });
    const Tensor &values = out[0], &V = out[1];
    // gA = V (skew(V^T gV) / E + diag(gL)) V^T, E_ij = L_j - L_i (1 on the diagonal).
    Tensor inner = zeros_like(V);
    if (grads[1].defined()) {
      const Tensor VtgV = matmul(mT(V), grads[1]);
      const Tensor gaps = values.unsqueeze(-2) - values.unsqueeze(-1) + identity(values.size(-1), V);
      inner = 0.5 * (VtgV - mT(VtgV)) / gaps;
    }
    if (grads[0].defined()) inner = inner + diag_embed(grads[0]);
    return Grads{matmul(V, matmul(inner, mT(V)))};
  };
}

BackwardFn d_linalg_svd(const OpCall& c, std::vector<Tensor>& saved) {
  saved.push_back(c.inputs[0]);
  const bool full = c.attr_int("linalg_svd", "full_matrices") != 0;
  return [full](const Grads& grads, const Grads& in) {
    const Tensor& A = in[0];
    const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
    const bool vectors_used = grads[0].defined() || grads[2].defined();
    if (!vectors_used && !grads[1].defined()) return Grads{Tensor()};
    if (full && m != n && vectors_used) {
      throw_error(ErrorKind::NotImplemented,
                  "linalg.svd: the derivative through U or Vh of a " + std::to_string(m) + " by " + std::to_string(n) +
                      " matrix needs full_matrices=False (the extra columns of the full bases are arbitrary)");
    }
    const Grads out = outputs_of(in, 1, 3, [&] {
      const linalg::SvdResult r = linalg::svd(A, full);
      return Grads{r.U, r.S, r.Vh};
    });
    const Tensor &U = out[0], &S = out[1], &Vh = out[2];
    if (!vectors_used) return Grads{matmul(U.narrow(-1, 0, k), matmul(diag_embed(grads[1]), Vh.narrow(-2, 0, k)))};
    const Tensor V = mT(Vh);
    const Tensor gU = or_zeros(grads[0], U), gV = mT(or_zeros(grads[2], Vh));
    // With skew(X) = X - X^T and E_ij = S_j^2 - S_i^2 (1 on the diagonal):
    // gA = U [(skew(U^T gU) S + S skew(V^T gV)) / E + diag(gS)] V^T
    //      + (I - U U^T) gU S^{-1} V^T + U S^{-1} gV^T (I - V V^T).
    const Tensor S2 = S * S;
    const Tensor gaps = S2.unsqueeze(-2) - S2.unsqueeze(-1) + identity(k, S);
    const Tensor UtgU = matmul(mT(U), gU), VtgV = matmul(mT(V), gV);
    Tensor inner = zero_diagonal(((UtgU - mT(UtgU)) * S.unsqueeze(-2) + S.unsqueeze(-1) * (VtgV - mT(VtgV))) / gaps);
    if (grads[1].defined()) inner = inner + diag_embed(grads[1]);
    Tensor gA = matmul(U, matmul(inner, Vh));
    if (m > k) {
      const Tensor gU_over_S = gU / S.unsqueeze(-2);
      gA = gA + matmul(gU_over_S - matmul(U, matmul(mT(U), gU_over_S)), Vh);
    }
    if (n > k) {
      const Tensor gVt_over_S = mT(gV) / S.unsqueeze(-1);
      gA = gA + matmul(U, gVt_over_S - matmul(matmul(gVt_over_S, V), Vh));
    }
    return Grads{gA};
  };
}

}  // namespace ember::autograd
