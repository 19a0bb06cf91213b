"""The matrix functions the orthogonal parametrization is built on, composed
of matmuls and elementwise ops so that autograd derives their gradients:
the matrix exponential, the product of Householder reflectors, and the
Householder QR factorization (LAPACK's geqrf) that produces them."""

import math

import ember

# exp(A) = exp(A / 2**s) ** (2**s): with s chosen so that the scaled matrix
# has norm at most 1/2, 18 terms of the Taylor series leave an error below
# 0.5**19 / 19!, far under float64's precision.
_TAYLOR_TERMS = 18
_SCALED_NORM = 0.5


def _identity_like(A):  # noqa: N803  (PyTorch's names)
    return ember.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(list(A.shape))


def matrix_exp(A):  # noqa: N803
    """exp of each square matrix in A, by scaling, a Taylor series and squaring."""
    with ember.no_grad():
        norm = float(A.abs().sum(-1).max().item()) if A.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm / _SCALED_NORM))) if norm > 0 else 0
    scaled = A / (2 ** squarings)
    identity = _identity_like(A)
    result = identity
    for term in range(_TAYLOR_TERMS, 0, -1):
        result = identity + scaled.matmul(result) / term
    for _ in range(squarings):
        result = result.matmul(result)
    return result


def _reflector_vectors(A):  # noqa: N803
    """The reflectors geqrf stores in A: A's strictly lower part with an implicit 1 on the diagonal."""
    rows, columns = A.shape[-2:]
    return A.tril(-1) + ember.eye(rows, columns, dtype=A.dtype, device=A.device)


def householder_product(A, tau):  # noqa: N803
    """The first columns of H_0 H_1 ... H_(k-1), H_i = I - tau_i v_i v_i^T, as
    torch.linalg.householder_product: (..., n, k) from A (..., n, k)."""
    vectors = _reflector_vectors(A)
    rows, columns = A.shape[-2:]
    result = ember.eye(rows, columns, dtype=A.dtype, device=A.device).expand(list(A.shape))
    for i in reversed(range(tau.shape[-1])):
        v = vectors[..., i:i + 1]
        result = result - tau[..., i:i + 1].unsqueeze(-1) * v.matmul(v.transpose(-2, -1).matmul(result))
    return result


def geqrf(A):  # noqa: N803
    """(reflectors with R above them, tau) as LAPACK's geqrf leaves them, by
    one Householder reflection per column; not differentiable, as in PyTorch."""
    with ember.no_grad():
        A = A.clone()
        rows, columns = A.shape[-2:]
        taus = []
        for j in range(min(rows, columns)):
            column = A[..., j:, j]
            alpha, tail = column[..., 0], column[..., 1:]
            tail_squared = (tail * tail).sum(-1)
            norm = (alpha * alpha + tail_squared).sqrt()
            # LAPACK's dlarfg: beta takes the sign opposite to alpha's, -norm when alpha is 0.
            beta = ember.where(alpha >= 0, -norm, norm)
            reflects = tail_squared > 0
            tau = ember.where(reflects, (beta - alpha) / beta, ember.zeros_like(alpha))
            scale = ember.where(reflects, 1 / (alpha - beta), ember.zeros_like(alpha))
            vector = ember.cat([ember.ones_like(alpha).unsqueeze(-1), tail * scale.unsqueeze(-1)], -1)
            block = A[..., j:, j:]
            projection = (vector.unsqueeze(-1) * block).sum(-2, keepdim=True)
            A[..., j:, j:] = block - tau.unsqueeze(-1).unsqueeze(-1) * vector.unsqueeze(-1) * projection
            A[..., j, j] = ember.where(reflects, beta, alpha)
            A[..., j + 1:, j] = vector[..., 1:]
            taus.append(tau)
        tau = ember.stack(taus, -1) if taus else A.new_zeros(list(A.shape[:-2]) + [0])
    return A, tau
