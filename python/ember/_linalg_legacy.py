"""The linear-algebra names PyTorch keeps at the top level from before
torch.linalg (torch.qr, torch.cholesky, torch.lu, ...), with their argument
orders and results, each warning once that its torch.linalg form replaces
it, as PyTorch's do."""

import warnings
from collections import namedtuple

from . import _C, linalg
from ._factories import eye
from ._linalg_factorizations import cholesky_solve

__all__ = ["qr", "cholesky", "cholesky_inverse", "lu", "lu_solve", "triangular_solve"]

triangular_solve_result = namedtuple("triangular_solve", "solution cloned_coefficient")
qr_result = namedtuple("qr", "Q R")

_warned = set()


def _deprecated(name, replacement):
    if name not in _warned:
        _warned.add(name)
        warnings.warn(f"torch.{name} is deprecated in favor of {replacement} and will be removed in a future "
                      f"release.", UserWarning, stacklevel=3)


def qr(input, some=True):
    _deprecated("qr", "torch.linalg.qr")
    return qr_result(*linalg.qr(input, "reduced" if some else "complete"))


def cholesky(input, upper=False):
    _deprecated("cholesky", "torch.linalg.cholesky")
    return linalg.cholesky(input, upper=upper)


def cholesky_inverse(L, upper=False):  # noqa: N803  (PyTorch's name)
    """The inverse of A from its Cholesky factor (A = L L^T, or U^T U with upper)."""
    if L.dim() < 2 or L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: expected a batch of square matrices, got shape {list(L.shape)}")
    identity = eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(L.shape)
    return cholesky_solve(identity, L, upper)


def lu(A, pivot=True, get_infos=False):  # noqa: N803
    """(LU, pivots), or (LU, pivots, infos) with get_infos, as linalg.lu_factor(_ex) gives them."""
    _deprecated("lu", "torch.linalg.lu_factor")
    if get_infos:
        return tuple(linalg.lu_factor_ex(A, pivot=pivot))
    return tuple(linalg.lu_factor(A, pivot=pivot))


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803
    _deprecated("lu_solve", "torch.linalg.lu_solve (whose arguments are reversed)")
    return linalg.lu_solve(LU_data, LU_pivots, b)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):  # noqa: N803
    """(the solution X of op(A) X = b, a copy of A), op transposing A when asked."""
    _deprecated("triangular_solve", "torch.linalg.solve_triangular (whose arguments are reversed)")
    coefficient = A.mT if transpose else A
    solution = linalg.solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return triangular_solve_result(solution, A.clone())


def install_tensor_methods():
    _C.Tensor.qr = lambda self, some=True: qr(self, some)
    _C.Tensor.cholesky = lambda self, upper=False: cholesky(self, upper)
    _C.Tensor.cholesky_inverse = lambda self, upper=False: cholesky_inverse(self, upper)
    _C.Tensor.lu = lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos)
    _C.Tensor.lu_solve = lambda self, LU_data, LU_pivots: lu_solve(self, LU_data, LU_pivots)  # noqa: N803
    _C.Tensor.triangular_solve = (lambda self, A, upper=True, transpose=False, unitriangular=False:  # noqa: N803
                                  triangular_solve(self, A, upper, transpose, unitriangular))
