"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): a Gaussian whose
covariance is W W^T + D (W n x m with m small, D diagonal). Its density
works through the m x m capacitance matrix C = I + W^T D^-1 W (Woodbury's
identity and the matrix determinant lemma), never an n x n factorization."""

import math

from .. import _factories, linalg
from .._shape_ops import broadcast_tensors
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .location_scale import LocationScale
from .multivariate_normal import _diagonal


def _plus_identity(matrix):
    return matrix + _factories.eye(matrix.shape[-1], dtype=matrix.dtype, device=matrix.device)


class LowRankMultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {Size(event_shape)}")
        try:
            loc_column, self.cov_factor, diag_column = broadcast_tensors(loc.unsqueeze(-1), cov_factor,
                                                                         cov_diag.unsqueeze(-1))
        except RuntimeError as error:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                             f"cov_diag {cov_diag.shape}") from error
        self.loc, self.cov_diag = loc_column[..., 0], diag_column[..., 0]
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        # Cholesky factor of C = I + W^T D^-1 W.
        self._capacitance_tril = linalg.cholesky(_plus_identity(self._scaled_factor_t() @ cov_factor))
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def _scaled_factor_t(self):
        """W^T D^-1."""
        return self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    mean = LocationScale.mean
    mode = LocationScale.mode

    @property
    def variance(self):
        variance = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return variance.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    @property
    def scale_tril(self):
        # W W^T + D = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2.
        root_diag = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / root_diag
        return (root_diag * linalg.cholesky(_plus_identity(scaled @ scaled.mT))).expand(self._matrix_shape())

    @property
    def covariance_matrix(self):
        factor = self._unbroadcasted_cov_factor
        return (factor @ factor.mT + self._unbroadcasted_cov_diag.diag_embed()).expand(self._matrix_shape())

    @property
    def precision_matrix(self):
        # Woodbury: (W W^T + D)^-1 = D^-1 - D^-1 W C^-1 W^T D^-1.
        solved = linalg.solve_triangular(self._capacitance_tril, self._scaled_factor_t(), upper=False)
        precision = self._unbroadcasted_cov_diag.reciprocal().diag_embed() - solved.mT @ solved
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        options = dict(dtype=self.loc.dtype, device=self.loc.device)
        noise_factor = _factories.randn(*(shape[:-1] + tuple(self.cov_factor.shape[-1:])), **options)
        noise_diag = _factories.randn(*shape, **options)
        low_rank = (self._unbroadcasted_cov_factor @ noise_factor.unsqueeze(-1)).squeeze(-1)
        return self.loc + low_rank + self._unbroadcasted_cov_diag.sqrt() * noise_diag

    def _half_log_det(self):
        """log det(W W^T + D) / 2, with det(W W^T + D) = det C det D (the matrix determinant lemma)."""
        return _diagonal(self._capacitance_tril).log().sum(-1) + 0.5 * self._unbroadcasted_cov_diag.log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        difference = value - self.loc
        projected = (self._scaled_factor_t() @ difference.unsqueeze(-1))
        solved = linalg.solve_triangular(self._capacitance_tril, projected, upper=False).squeeze(-1)
        mahalanobis = (difference.pow(2) / self._unbroadcasted_cov_diag).sum(-1) - solved.pow(2).sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self):
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy.expand(tuple(self._batch_shape)) if len(self._batch_shape) else entropy
