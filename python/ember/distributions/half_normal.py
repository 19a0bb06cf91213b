"""HalfNormal(scale): |Normal(0, scale)|, on [0, inf)."""

import math

from . import constraints
from .distribution import Distribution
from .normal import Normal
from .utils import batch_shape_of, broadcast_all


class HalfNormal(Distribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = broadcast_all(scale)
        self._normal = Normal(0.0 * self.scale, self.scale, validate_args=False)
        super().__init__(batch_shape_of([scale], self.scale), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return self.scale * 0

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        return self._normal.rsample(sample_shape).abs()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self._normal.log_prob(value) + math.log(2)
        return log_prob.where(value >= 0, log_prob * 0 - math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self._normal.cdf(value) - 1

    def icdf(self, prob):
        return (2 ** 0.5) * self.scale * (prob).erfinv()

    def entropy(self):
        return self._normal.entropy() - math.log(2)
