"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): the law
of X^T X for df Gaussian rows of covariance Sigma, over positive-definite
matrices. Samples use Bartlett's decomposition: L A A^T L^T, A lower
triangular with sqrt(Chi2(df - i)) on its diagonal and standard normals
below it (L the Cholesky factor of Sigma)."""

import math
import warnings

from .. import _C, _factories, linalg
from .._linalg_factorizations import cholesky_solve
from .._type_info import finfo
from . import constraints
from .exp_family import ExponentialFamily
from .gamma import Chi2
from .covariance_parametrization import CovarianceParametrizations, chosen, scale_tril_of
from .multivariate_normal import _diagonal
from .utils import broadcast_shape


def _multivariate_digamma(x, p):
    """sum over i < p of digamma(x - i / 2)."""
    halves = _factories.arange(p, dtype=x.dtype, device=x.device) / 2
    return (x.unsqueeze(-1) - halves).digamma().sum(-1)


class Wishart(CovarianceParametrizations, ExponentialFamily):
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self._event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        name, matrix = chosen(covariance_matrix, precision_matrix, scale_tril)
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, _C.Tensor):
            batch_shape = tuple(broadcast_shape(tuple(matrix.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(batch_shape)
        else:
            batch_shape = tuple(matrix.shape[:-2])
            self.df = _factories.tensor(df, dtype=matrix.dtype, device=matrix.device)
        size = matrix.shape[-1]
        if bool((self.df <= size - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {size - 1}.")
        if bool((self.df < size).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < "
                          "ndim.", stacklevel=2)
        setattr(self, name, matrix.expand(batch_shape + (size, size)))
        super().__init__(batch_shape, (size, size), validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_of(name, matrix)

    def _df_matrix(self):
        return self.df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self._event_shape[-1] - 1
        factor = factor.where(factor > 0, factor.new_full((), math.nan))
        return factor.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        covariance = self.covariance_matrix
        diagonal = covariance.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (covariance.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _bartlett_sample(self, sample_shape):
        size = self._event_shape[-1]
        factor = self._unbroadcasted_scale_tril
        degrees = self.df.unsqueeze(-1) - _factories.arange(size, dtype=factor.dtype, device=factor.device)
        diagonal = Chi2(degrees).rsample(sample_shape).sqrt().clamp(min=finfo(factor.dtype).eps)
        below = _factories.randn(*(tuple(sample_shape) + tuple(self._batch_shape) + (size, size)),
                                 dtype=factor.dtype, device=factor.device).tril(-1)
        root = factor @ (below + diagonal.diag_embed())
        return root @ root.mT

    def rsample(self, sample_shape=(), max_try_correction=10):
        """Bartlett draws; a draw that is numerically singular (possible
        when df < ndim) is drawn again, up to max_try_correction times."""
        sample = self._bartlett_sample(sample_shape)
        singular = ~self.support.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample = _C.where(singular.unsqueeze(-1).unsqueeze(-1), self._bartlett_sample(sample_shape), sample)
                singular = ~self.support.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def _log_det_half_scale(self, size):
        """log det(2 Sigma) / 2."""
        return size * math.log(2) / 2 + _diagonal(self._unbroadcasted_scale_tril).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        df, size = self.df, self._event_shape[-1]
        trace = cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-df * self._log_det_half_scale(size) - (df / 2).mvlgamma(size)
                + (df - size - 1) / 2 * linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        df, size = self.df, self._event_shape[-1]
        return ((size + 1) * self._log_det_half_scale(size) + (df / 2).mvlgamma(size)
                - (df - size - 1) / 2 * _multivariate_digamma(df / 2, size) + df * size / 2)

    @property
    def _natural_params(self):
        return -self.precision_matrix / 2, (self.df - self._event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        size = self._event_shape[-1]
        shifted = y + (size + 1) / 2
        return shifted * (-linalg.slogdet(-2 * x).logabsdet + math.log(2) * size) + shifted.mvlgamma(size)
