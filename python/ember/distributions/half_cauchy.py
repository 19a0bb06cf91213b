"""HalfCauchy(scale): |Cauchy(0, scale)|, on [0, inf)."""

import math

from .. import _factories
from . import constraints
from .cauchy import Cauchy
from .distribution import of_base
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class HalfCauchy(TransformedDistribution):
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    scale = of_base("scale")

    @property
    def mean(self):
        return _factories.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype,
                               device=self.scale.device)

    @property
    def mode(self):
        return _factories.zeros_like(self.scale)

    variance = of_base("variance")

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = _factories.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return log_prob.where(value >= 0, log_prob.new_full((), -math.inf))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
