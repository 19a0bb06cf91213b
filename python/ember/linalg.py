"""ember.linalg: PyTorch's torch.linalg. The norms are composed of
reductions (and, for ord 2, -2 and "nuc", of singular values); the
factorizations come from ember._linalg_factorizations, composed of the
catalogue's primitives (sdk/docs/ops.md "Linear algebra"); matrix_exp and
householder_product are compositions of matmuls, and
ember._linalg_compositions composes the rest (cond, multi_dot, ...)."""

import math
import numbers

from . import _C
from ._householder import householder_product  # noqa: F401  (ember.linalg's public names)
from ._linalg_compositions import (  # noqa: F401  (ember.linalg's public names)
    cond, cross, diagonal, matmul, matrix_power, multi_dot, tensorinv, tensorsolve, vander, vecdot)
from ._linalg_factorizations import (  # noqa: F401  (ember.linalg's public names)
    LinAlgError, cholesky, cholesky_ex, det, eigh, eigvalsh, inv, inv_ex, lstsq, lu, lu_factor, lu_factor_ex,
    lu_solve, matrix_rank, pinv, qr, slogdet, solve, solve_ex, solve_triangular, svd, svdvals)
from ._linalg_factorizations import _check_square
from ._matrix_exp import matrix_exp as _matrix_exp
from ._dtype_names import dtype_name as _dtype_name


def _floating_input(op, x, dtype):
    if dtype is not None:
        x = x.to(dtype)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.{op}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype_name(x.dtype)}")
    return x


def _dims(dim, rank):
    if dim is None:
        return list(range(rank))
    return [dim] if isinstance(dim, numbers.Integral) else list(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002  (PyTorch's name)
    """(sum |x|^ord)^(1/ord) over dim (every dim when None); ord inf and -inf
    are the largest and smallest |x|, ord 0 counts the nonzero elements."""
    x = _floating_input("vector_norm", x, dtype)
    if x.numel() == 0 and ord < 0 or (x.numel() == 0 and math.isinf(ord)):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                           f"operation does not have an identity")
    dims = _dims(dim, x.dim())
    if x.dim() == 0:
        return x.abs() if ord != 0 else (x != 0).to(x.dtype)
    return _C.norm(x, float(ord), dims, keepdim)


def matrix_exp(A):  # noqa: N803
    """exp of each square matrix in A (by scaling, a Taylor series and squaring)."""
    _check_square("matrix_exp", A)
    return _matrix_exp(_floating_input("matrix_exp", A, None))


def _unsupported_order(op, ord):  # noqa: A002
    raise RuntimeError(f"linalg.{op}: Order {ord} not supported.")


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):  # noqa: A002, N803
    """The matrix norm over the two dims ``dim``: "fro" (Frobenius), 1 and -1
    (largest and smallest absolute column sum), inf and -inf (row sums)."""
    A = _floating_input("matrix_norm", A, dtype)  # noqa: N806
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    rows, columns = (d % A.dim() for d in dim)
    if ord == "fro":
        return _C.norm(A, 2.0, [rows, columns], keepdim)
    if ord == "nuc" or ord in (2, -2):
        values = svdvals(A.movedim((rows, columns), (-2, -1)))
        result = values.sum(-1) if ord == "nuc" else values.amax(-1) if ord == 2 else values.amin(-1)
        return result.unsqueeze(min(rows, columns)).unsqueeze(max(rows, columns)) if keepdim else result
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        _unsupported_order("matrix_norm", ord)
    # ord 1 sums each column (over the rows), ord inf each row (over the columns).
    summed, across = (rows, columns) if abs(ord) == 1 else (columns, rows)
    sums = A.abs().sum(summed, keepdim=True)
    result = sums.amax(across, keepdim=True) if ord > 0 else sums.amin(across, keepdim=True)
    return result if keepdim else result.squeeze([rows, columns])


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002, N803
    """vector_norm or matrix_norm, as torch.linalg.norm chooses: a matrix norm
    for a string ord or two dims (or a 2-d input with an ord and no dim)."""
    if dim is not None and not isinstance(dim, numbers.Integral) and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.dim() not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.dim()}D.")
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.norm: ord {ord!r} is a matrix norm: it needs a 2-D input or two dims")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


# The top-level and Tensor spellings programs use: torch.matrix_exp, and
# torch.orgqr, householder_product's older name.
_C.Tensor.matrix_exp = matrix_exp
_C.Tensor.orgqr = householder_product
