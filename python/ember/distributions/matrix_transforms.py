"""Transforms onto matrices: LowerCholeskyTransform (an unconstrained
square onto lower Cholesky factors), PositiveDefiniteTransform (onto
positive-definite matrices, as L L^T) and CorrCholeskyTransform (a vector
onto the Cholesky factor of a correlation matrix)."""

import math

from .. import _factories, linalg
from .._type_info import finfo
from . import constraints
from .transforms import _Stateless
from .utils import tril_matrix_to_vec, vec_to_tril_matrix


def _with_diagonal(matrix, diagonal):
    """The strictly lower triangle of matrix plus `diagonal` on its diagonal."""
    return matrix.tril(-1) + diagonal.diag_embed()


class LowerCholeskyTransform(_Stateless):
    """The strict lower triangle kept, the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return _with_diagonal(x, x.diagonal(dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return _with_diagonal(y, y.diagonal(dim1=-2, dim2=-1).log())


class PositiveDefiniteTransform(_Stateless):
    """L L^T for L the lower Cholesky factor LowerCholeskyTransform makes."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        factor = LowerCholeskyTransform()(x)
        return factor @ factor.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CorrCholeskyTransform(_Stateless):
    """A vector of D(D-1)/2 reals onto a D x D correlation Cholesky factor:
    tanh maps each to a partial correlation z in (-1, 1), and each row is
    filled by stick breaking, entry j taking z_j of the squared length the
    entries before it left, the diagonal the rest."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = finfo(x.dtype).eps
        partial = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        remaining = (1 - partial.pow(2)).sqrt().cumprod(-1)
        eye = _factories.eye(partial.shape[-1], dtype=x.dtype, device=x.device)
        return (partial + eye) * _shifted_right(remaining)

    def _inverse(self, y):
        left = _shifted_right(1 - (y * y).cumsum(-1))
        partial = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (partial.log1p() - (-partial).log1p()) / 2

    def log_abs_det_jacobian(self, x, y):
        from ..nn.functional import softplus

        stick_breaking = 0.5 * tril_matrix_to_vec(1 - (y * y).cumsum(-1), diag=-2).log().sum(-1)
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        count = shape[-1]
        size = round((0.25 + 2 * count) ** 0.5 + 0.5)
        if size * (size - 1) // 2 != count:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return type(shape)(tuple(shape[:-1]) + (size, size))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        return type(shape)(tuple(shape[:-2]) + (shape[-1] * (shape[-1] - 1) // 2,))


def _shifted_right(value):
    """value moved one place right along the last dim, a 1 entering on the left."""
    from ..nn.functional import pad

    return pad(value[..., :-1], [1, 0], value=1.0)
