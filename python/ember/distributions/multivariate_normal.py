"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril),
PyTorch's formulas over the Cholesky factor L of the covariance: samples are
loc + L eps, log_prob solves L z = x - loc (ember.linalg.solve_triangular)."""

import math

from .. import _factories, linalg
from . import constraints
from .covariance_parametrization import CovarianceParametrizations, chosen, scale_tril_of
from .distribution import Distribution
from .location_scale import LocationScale
from .utils import broadcast_shape


def _diagonal(matrix):
    return (matrix * _factories.eye(matrix.shape[-1], dtype=matrix.dtype, device=matrix.device)).sum(-1)


class MultivariateNormal(CovarianceParametrizations, Distribution):
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, matrix = chosen(covariance_matrix, precision_matrix, scale_tril)
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch "
                             f"dimensions")
        batch_shape = tuple(broadcast_shape(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(*batch_shape, *matrix.shape[-2:]))
        self.loc = loc.expand(*batch_shape, loc.shape[-1])
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_of(name, matrix)

    mean = LocationScale.mean
    mode = LocationScale.mode

    @property
    def variance(self):
        shape = tuple(self._batch_shape) + tuple(self._event_shape)
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(*shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        noise = _factories.randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ noise.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return _diagonal(self._unbroadcasted_scale_tril).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        difference = (value - self.loc).unsqueeze(-1)
        factor = self._unbroadcasted_scale_tril
        solved = linalg.solve_triangular(factor, difference, upper=False).squeeze(-1)
        mahalanobis = solved.pow(2).sum(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self):
        k = self._event_shape[0]
        entropy = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy.expand(*self._batch_shape) if len(self._batch_shape) else entropy

