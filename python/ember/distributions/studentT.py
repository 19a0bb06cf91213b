"""StudentT(df, loc, scale): loc + scale * Normal / sqrt(Chi2(df) / df)."""

import math

from .. import _factories
from . import constraints
from .distribution import Distribution
from .gamma import Chi2
from .utils import batch_shape_of, broadcast_all


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(batch_shape_of([df, loc, scale], self.df), validate_args=validate_args)

    @property
    def mean(self):
        nan = _factories.full_like(self.loc, math.nan)
        return self.loc.where(self.df > 1, nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        infinite = _factories.full_like(self.df, math.inf)
        nan = _factories.full_like(self.df, math.nan)
        return finite.where(self.df > 2, infinite.where(self.df > 1, nan))

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        normal = _factories.randn(*shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * (chi2 / self.df).rsqrt()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        normalizer = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + (0.5 * self.df).lgamma()
                      - (0.5 * (self.df + 1.0)).lgamma())
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - normalizer

    def entropy(self):
        log_beta = (0.5 * self.df).lgamma() + math.lgamma(0.5) - (0.5 * (self.df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (self.df + 1) * ((0.5 * (self.df + 1)).digamma() - (0.5 * self.df).digamma())
                + 0.5 * self.df.log() + log_beta)
