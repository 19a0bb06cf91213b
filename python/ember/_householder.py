"""Householder reflectors: their product (torch.linalg.householder_product),
composed of matmuls and elementwise ops so that autograd derives its
gradient, and the Householder QR factorization (LAPACK's geqrf) that
produces them."""

import ember

def _reflector_vectors(A):  # noqa: N803
    """The reflectors geqrf stores in A: A's strictly lower part with an implicit 1 on the diagonal."""
    rows, columns = A.shape[-2:]
    return A.tril(-1) + ember.eye(rows, columns, dtype=A.dtype, device=A.device)


def _check_reflectors(A, tau):  # noqa: N803
    op = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau.dim() != A.dim() - 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {A.dim()}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{op}: tau dtype {_name(tau.dtype)} does not match input dtype {_name(A.dtype)}")
    if not A.dtype.is_floating_point:
        raise NotImplementedError(f"{op}: not implemented for '{_name(A.dtype)}'")


def _name(dtype):
    return str(dtype).removeprefix("ember.")


def householder_product(A, tau):  # noqa: N803
    """The first columns of H_0 H_1 ... H_(k-1), H_i = I - tau_i v_i v_i^T, as
    torch.linalg.householder_product: (..., n, k) from A (..., n, k)."""
    _check_reflectors(A, tau)
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
