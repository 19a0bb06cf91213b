"""Dirichlet(concentration) over the simplex of the last dim: normalized
Gamma draws, whose gradient reaches the concentration through theirs."""

from .. import _factories
from .._elementwise_math import xlogy
from . import constraints
from ._standard_gamma import standard_gamma
from .distribution import Distribution


class Dirichlet(Distribution):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        # Where every concentration is below 1 the density peaks at the vertex of the largest one.
        inner = (self.concentration - 1).clamp(min=0.0)
        inner = inner / inner.sum(-1, keepdim=True)
        vertex = (self.concentration.argmax(-1, keepdim=True)
                  == _factories.arange(self.concentration.shape[-1], device=self.concentration.device))
        all_below_one = (self.concentration < 1).all(-1, keepdim=True)
        return _factories.zeros_like(inner).where(~vertex, _factories.ones_like(inner)).where(all_below_one, inner)

    @property
    def variance(self):
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        draws = standard_gamma(self.concentration.expand(shape))
        return draws / draws.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration - 1.0, value).sum(-1) + self.concentration.sum(-1).lgamma()
                - self.concentration.lgamma().sum(-1))

    def entropy(self):
        count = self.concentration.shape[-1]
        total = self.concentration.sum(-1)
        return (self.concentration.lgamma().sum(-1) - total.lgamma() - (count - total) * total.digamma()
                - ((self.concentration - 1.0) * self.concentration.digamma()).sum(-1))
