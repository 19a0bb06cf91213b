"""torch.linalg's factorizations and solvers. Six catalogue primitives
(cholesky_ex, lu_factor_ex, solve_triangular, qr, eigh, svd) do the work, each
with its derivative in the core; solve, inv, det, slogdet, lu_solve, lstsq,
pinv and matrix_rank are composed of them, so their gradients follow.
Results are named tuples with torch.return_types' names and fields."""

import math
from collections import namedtuple

import ember

from . import _C

_ops = _C._linalg


class LinAlgError(RuntimeError):
    """A linear-algebra routine failed on its input (torch.linalg.LinAlgError)."""


linalg_cholesky_ex = namedtuple("linalg_cholesky_ex", "L info")
linalg_lu_factor = namedtuple("linalg_lu_factor", "LU pivots")
linalg_lu_factor_ex = namedtuple("linalg_lu_factor_ex", "LU pivots info")
linalg_lu = namedtuple("linalg_lu", "P L U")
lu_unpack_result = namedtuple("lu_unpack", "P L U")
linalg_solve_ex = namedtuple("linalg_solve_ex", "result info")
linalg_inv_ex = namedtuple("linalg_inv_ex", "inverse info")
linalg_slogdet = namedtuple("linalg_slogdet", "sign logabsdet")
linalg_qr = namedtuple("linalg_qr", "Q R")
linalg_eigh = namedtuple("linalg_eigh", "eigenvalues eigenvectors")
linalg_svd = namedtuple("linalg_svd", "U S Vh")
linalg_lstsq = namedtuple("linalg_lstsq", "solution residuals rank singular_values")


def _raise_for_info(info, message):
    """LinAlgError for the first batch element whose info is nonzero;
    message(code) words it, prefixed by the element when A is batched."""
    if info.numel() == 0:
        return
    failed = (info != 0).reshape(-1).nonzero()
    if failed.numel() == 0:
        return
    index = int(failed[0, 0].item())
    code = int(info.reshape(-1)[index].item())
    prefix = f"(Batch element {index}): " if info.dim() > 0 else ""
    raise LinAlgError(message(prefix, code))


def _matrix_t(x):
    return x.transpose(-2, -1)


def _diagonal(x):
    """The main diagonals of a batch of square matrices (differentiable)."""
    return (x * ember.eye(x.shape[-1], dtype=x.dtype, device=x.device)).sum(-1)


def cholesky_ex(A, *, upper=False, check_errors=False):  # noqa: N803  (PyTorch's names)
    L, info = _ops.cholesky_ex(A)  # noqa: N806
    if check_errors:
        _raise_cholesky(info)
    return linalg_cholesky_ex(_matrix_t(L) if upper else L, info)


def _raise_cholesky(info):
    _raise_for_info(info, lambda prefix, code: (
        f"linalg.cholesky: {prefix}The factorization could not be completed because the input is not "
        f"positive-definite (the leading minor of order {code} is not positive-definite)."))


def cholesky(A, *, upper=False):  # noqa: N803
    """L with A = L L^T (or U = L^T with upper=True) for symmetric positive-definite A."""
    L, info = _ops.cholesky_ex(A)  # noqa: N806
    _raise_cholesky(info)
    return _matrix_t(L) if upper else L


def lu_factor_ex(A, *, pivot=True, check_errors=False):  # noqa: N803
    if not pivot:
        raise NotImplementedError("linalg.lu_factor: LU without pivoting is not implemented on the CPU (as in "
                                  "PyTorch, whose CPU kernel requires pivot=True)")
    LU, pivots, info = _ops.lu_factor_ex(A)  # noqa: N806
    if check_errors:
        _raise_for_info(info, lambda prefix, code: (
            f"linalg.lu_factor: {prefix}U[{code},{code}] is zero and using it on lu_solve would result in "
            f"division by zero. If you still want to perform the factorization, consider calling "
            f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"))
    return linalg_lu_factor_ex(LU, pivots, info)


def lu_factor(A, *, pivot=True):  # noqa: N803
    """The packed LU factorization with partial pivoting, as torch.linalg.lu_factor."""
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot, check_errors=True)  # noqa: N806
    return linalg_lu_factor(LU, pivots)


def _row_order(pivots, rows):
    """The rows of A in the order of L U (P^T A), from LAPACK's sequential swaps."""
    batch = tuple(pivots.shape[:-1])
    swaps = pivots.reshape(-1, pivots.shape[-1]).tolist() if pivots.numel() else [[]] * math.prod(batch)
    orders = []
    for row_swaps in swaps:
        order = list(range(rows))
        for i, target in enumerate(row_swaps):
            order[i], order[target - 1] = order[target - 1], order[i]
        orders.append(order)
    return ember.tensor(orders, dtype=ember.int64).reshape(*batch, rows).to(pivots.device)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803  (PyTorch's names)
    """P, L, U with A = P L U from lu_factor's packed result (an empty tensor
    for what is not asked for, as PyTorch gives)."""
    rows, columns = LU_data.shape[-2], LU_data.shape[-1]
    k = min(rows, columns)
    empty = ember.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    L, U = empty, empty  # noqa: N806
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + ember.eye(rows, k, dtype=LU_data.dtype, device=LU_data.device)  # noqa: N806
        U = LU_data[..., :k, :].triu()  # noqa: N806
    P = empty  # noqa: N806
    if unpack_pivots:
        # (P^T A)[i] = A[order[i]], so P[order[i], i] = 1.
        order = _row_order(LU_pivots, rows)
        P = ember.nn.functional.one_hot(order, rows).to(LU_data.dtype).transpose(-2, -1)  # noqa: N806
    return lu_unpack_result(P, L, U)


def lu(A, *, pivot=True):  # noqa: N803
    """A = P L U with partial pivoting, as torch.linalg.lu."""
    LU, pivots = lu_factor(A, pivot=pivot)  # noqa: N806
    return linalg_lu(*lu_unpack(LU, pivots))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):  # noqa: N803
    """X with A X = B (X A = B with left=False; A^T with adjoint) from lu_factor's result."""
    n = LU.shape[-1]
    lower = LU.tril(-1)
    upper_part = LU.triu()
    if not left:
        return _matrix_t(lu_solve(LU, pivots, _matrix_t(B), left=True, adjoint=not adjoint))
    if B.shape[-2] != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    order = _row_order(pivots, n)
    batch = tuple(ember.broadcast_shapes(tuple(order.shape[:-1]), tuple(B.shape[:-2])))
    B = B.expand(*batch, *B.shape[-2:])  # noqa: N806
    index = order.expand(*batch, n).unsqueeze(-1).expand(*batch, n, B.shape[-1])
    if not adjoint:
        # A = P L U: X = U^{-1} L^{-1} P^T B.
        y = _ops.solve_triangular(lower, B.gather(-2, index), False, True, True)
        return _ops.solve_triangular(upper_part, y, True, True, False)
    # A^T = U^T L^T P^T: X = P L^{-T} U^{-T} B.
    y = _ops.solve_triangular(_matrix_t(upper_part), B, False, True, False)
    y = _ops.solve_triangular(_matrix_t(lower), y, True, True, True)
    return ember.zeros_like(y).scatter_add(-2, index, y)


def _check_square(op, A):  # noqa: N803
    if A.dim() < 2:
        raise RuntimeError(f"linalg.{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _vector_rhs(A, B):  # noqa: N803
    """torch.linalg.solve's rule: B is a batch of vectors when B.ndim == 1, or
    when B has A's batch shape without the last dim."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve_ex(A, B, *, left=True, check_errors=False):  # noqa: N803
    _check_square("solve", A)
    if A.dtype != B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_name(A.dtype)} and B of type {_name(B.dtype)} instead")
    vector = _vector_rhs(A, B)
    rhs = B.unsqueeze(-1) if vector else B
    if not left:
        rhs = _matrix_t(rhs)
    n = A.shape[-1]
    if rhs.shape[-2] != n:
        shown = f"{rhs.shape[-2]}x{rhs.shape[-1]}"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shown})")
    LU, pivots, info = _ops.lu_factor_ex(A if left else _matrix_t(A))  # noqa: N806
    if check_errors:
        _raise_for_info(info, lambda prefix, code: (
            f"torch.linalg.solve: {prefix}The solver failed because the input matrix is singular."))
    X = lu_solve(LU, pivots, rhs)  # noqa: N806
    if not left:
        X = _matrix_t(X)  # noqa: N806
    return linalg_solve_ex(X.squeeze(-1) if vector else X, info)


def solve(A, B, *, left=True):  # noqa: N803
    """X with A X = B (X A = B with left=False); LinAlgError when A is singular."""
    return solve_ex(A, B, left=left, check_errors=True).result


def _name(dtype):
    return str(dtype).removeprefix("ember.")


def _identity_like(A):  # noqa: N803
    n = A.shape[-1]
    return ember.eye(n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], n, n)


def inv_ex(A, *, check_errors=False):  # noqa: N803
    _check_square("inv", A)
    LU, pivots, info = _ops.lu_factor_ex(A)  # noqa: N806
    if check_errors:
        _raise_inv(info)
    return linalg_inv_ex(lu_solve(LU, pivots, _identity_like(A)), info)


def _raise_inv(info):
    _raise_for_info(info, lambda prefix, code: (
        f"linalg.inv: {prefix}The diagonal element {code} is zero, the inversion could not be completed because "
        f"the input matrix is singular."))


def inv(A):  # noqa: N803
    """A^{-1}; LinAlgError naming the batch element and the zero pivot when A is singular."""
    return inv_ex(A, check_errors=True).inverse


def _permutation_sign(pivots, dtype):
    """+1 or -1 per matrix: the parity of LAPACK's row swaps."""
    steps = ember.arange(1, pivots.shape[-1] + 1, dtype=pivots.dtype, device=pivots.device)
    swaps = (pivots != steps).to(ember.int64).sum(-1)
    return (1 - 2 * (swaps % 2)).to(dtype)


def slogdet(A):  # noqa: N803
    """(sign, log|det A|) through the LU factorization."""
    _check_square("slogdet", A)
    LU, pivots, _ = _ops.lu_factor_ex(A)  # noqa: N806
    diagonal = _diagonal(LU)
    sign = _permutation_sign(pivots, A.dtype) * diagonal.sign().prod(-1)
    return linalg_slogdet(sign, diagonal.abs().log().sum(-1))


def det(A):  # noqa: N803
    """det A, the signed product of U's diagonal."""
    _check_square("det", A)
    LU, pivots, _ = _ops.lu_factor_ex(A)  # noqa: N806
    return _permutation_sign(pivots, A.dtype) * _diagonal(LU).prod(-1)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):  # noqa: N803
    return _ops.solve_triangular(A, B, bool(upper), bool(left), bool(unitriangular))


def qr(A, mode="reduced"):  # noqa: N803
    return linalg_qr(*_ops.qr(A, mode))


def eigh(A, UPLO="L"):  # noqa: N803
    return linalg_eigh(*_ops.eigh(A, UPLO))


def eigvalsh(A, UPLO="L"):  # noqa: N803
    return _ops.eigh(A, UPLO)[0]


def svd(A, full_matrices=True, *, driver=None):  # noqa: N803
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    return linalg_svd(*_ops.svd(A, bool(full_matrices)))


def svdvals(A, *, driver=None):  # noqa: N803
    return svd(A, False, driver=driver).S


def _cutoff(S, shape, dtype, atol, rtol):  # noqa: N803
    """torch's tolerance: max(atol, rtol * largest singular value), rtol
    defaulting to eps * max(m, n) when neither is given."""
    eps = ember.finfo(dtype).eps
    if rtol is None:
        rtol = eps * max(shape[-2], shape[-1]) if atol is None or atol == 0 else 0.0
    largest = S.amax(-1, keepdim=True) if S.shape[-1] > 0 else S.sum(-1, keepdim=True)
    limit = largest * rtol
    if atol is not None:
        limit = limit.clamp(min=float(atol))
    return limit


def pinv(A, *, atol=None, rtol=None, hermitian=False):  # noqa: N803
    """The Moore-Penrose pseudo-inverse through the SVD, singular values at
    or below the cutoff treated as zero."""
    U, S, Vh = svd(A, full_matrices=False)  # noqa: N806
    limit = _cutoff(S, A.shape, A.dtype, atol, rtol)
    kept = S > limit
    inverse_values = ember.where(kept, 1 / ember.where(kept, S, ember.ones_like(S)), ember.zeros_like(S))
    return (_matrix_t(Vh) * inverse_values.unsqueeze(-2)) @ _matrix_t(U)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):  # noqa: N803
    S = eigvalsh(A).abs() if hermitian else svdvals(A)  # noqa: N806
    return (S > _cutoff(S, A.shape, A.dtype, atol, rtol)).to(ember.int64).sum(-1)


def lstsq(A, B, rcond=None, *, driver=None):  # noqa: N803
    """The minimum-norm least-squares solution through the SVD (gelsd's
    method); rank and singular values as the gelsd driver reports them,
    residuals when A is tall and of full rank."""
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
                           f", but got {driver}")
    vector = B.dim() == A.dim() - 1
    rhs = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != rhs.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2), but got "
                           f"{A.shape[-2]} and {rhs.shape[-2]}")
    U, S, Vh = svd(A, full_matrices=False)  # noqa: N806
    rtol = rcond if rcond is not None and rcond >= 0 else None
    limit = _cutoff(S, A.shape, A.dtype, None, rtol)
    kept = S > limit
    inverse_values = ember.where(kept, 1 / ember.where(kept, S, ember.ones_like(S)), ember.zeros_like(S))
    X = _matrix_t(Vh) @ (inverse_values.unsqueeze(-1) * (_matrix_t(U) @ rhs))  # noqa: N806
    rank = kept.to(ember.int64).sum(-1)
    m, n = A.shape[-2], A.shape[-1]
    if m > n and bool((rank == n).all()) and driver not in (None, "gelsy"):
        residuals = ((A @ X - rhs) ** 2).sum(-2)
    else:
        residuals = ember.zeros(0, dtype=A.dtype, device=A.device)
    singular_values = S if driver in ("gelsd", "gelss") else ember.zeros(0, dtype=A.dtype, device=A.device)
    if driver == "gels":
        rank = ember.zeros(0, dtype=ember.int64, device=A.device)
    return linalg_lstsq(X.squeeze(-1) if vector else X, residuals, rank, singular_values)


# The top-level and Tensor spellings programs use (torch.inverse, torch.det,
# Tensor.inverse, torch.cholesky_solve, the older torch.svd).
torch_return_svd = namedtuple("svd", "U S V")


def logdet(A):  # noqa: N803
    """log det A: NaN where det A < 0, -inf where it is 0."""
    sign, logabsdet = slogdet(A)
    return ember.where(sign < 0, ember.full_like(logabsdet, float("nan")), logabsdet)


def cholesky_solve(B, L, upper=False):  # noqa: N803
    """X with A X = B given A's Cholesky factor L (A = L L^T, or U^T U with upper)."""
    lower = _matrix_t(L) if upper else L
    return _ops.solve_triangular(_matrix_t(lower), _ops.solve_triangular(lower, B, False, True, False), True, True,
                                 False)


def svd_reduced_or_full(A, some=True, compute_uv=True):  # noqa: N803
    """torch.svd: (U, S, V) with V, not Vh; some=False gives the full bases."""
    U, S, Vh = svd(A, full_matrices=not some)  # noqa: N806
    if not compute_uv:
        return torch_return_svd(ember.zeros_like(U), S, ember.zeros_like(_matrix_t(Vh)))
    return torch_return_svd(U, S, _matrix_t(Vh))


Tensor = _C.Tensor
Tensor.inverse = inv
Tensor.det = det
Tensor.logdet = logdet
Tensor.slogdet = slogdet
Tensor.cholesky_solve = cholesky_solve
Tensor.svd = svd_reduced_or_full
