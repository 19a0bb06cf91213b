"""GeneralizedPareto(loc, scale, concentration): the limit law of
exceedances over a high threshold; concentration 0 is the exponential
case, a negative one bounds the support above at loc - scale /
concentration."""

import math

from .. import _factories
from . import constraints
from .distribution import Distribution
from .utils import batch_shape_of, broadcast_all


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(batch_shape_of([loc, scale, concentration], self.loc), validate_args=validate_args)

    @property
    def support(self):
        bounded = self.loc - self.scale / self.concentration
        return constraints.interval(self.loc, bounded.where(self.concentration < 0, bounded.new_full((), math.inf)))

    def _exponential_case(self):
        """Where the concentration is 0 (to isclose's tolerance), and the
        concentration with 1 there, so that the other branch stays finite."""
        at_zero = self.concentration.abs() <= 1e-8
        return at_zero, self.concentration.where(~at_zero, _factories.ones_like(self.concentration))

    @property
    def mean(self):
        valid = self.concentration < 1
        mean = self.loc + self.scale / (1 - self.concentration.where(valid, self.concentration.new_full((), 0.5)))
        return mean.where(valid, mean.new_full((), math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        valid = self.concentration < 0.5
        concentration = self.concentration.where(valid, self.concentration.new_full((), 0.25))
        variance = self.scale.pow(2) / ((1 - concentration).pow(2) * (1 - 2 * concentration))
        return variance.where(valid, variance.new_full((), math.nan))

    def rsample(self, sample_shape=()):
        uniform = _factories.rand(*self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(uniform)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        at_zero, concentration = self._exponential_case()
        power = 1 / concentration + 1
        general = power.where(power == 0, power * (concentration * z).log1p())
        return -self.scale.log() - z.where(at_zero, general)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        at_zero, concentration = self._exponential_case()
        return (-z).where(at_zero, -(concentration * z).log1p() / concentration)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        at_zero, concentration = self._exponential_case()
        log_survival = (-value).log1p()
        general = self.loc + self.scale / concentration * (-concentration * log_survival).expm1()
        return (self.loc - self.scale * log_survival).where(at_zero, general)

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).expand(tuple(self._batch_shape))
