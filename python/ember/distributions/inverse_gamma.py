"""InverseGamma(concentration, rate): 1 / Gamma(concentration, rate)."""

import math

from . import constraints
from .distribution import of_base
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform


class InverseGamma(TransformedDistribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())), validate_args=validate_args)

    concentration, rate = of_base("concentration"), of_base("rate")

    @property
    def mean(self):
        finite = self.rate / (self.concentration - 1)
        return finite.where(self.concentration > 1, finite.new_full((), math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        finite = self.rate.pow(2) / ((self.concentration - 1).pow(2) * (self.concentration - 2))
        return finite.where(self.concentration > 2, finite.new_full((), math.inf))

    def entropy(self):
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())
