"""Cauchy(loc, scale)."""

import math

from .. import _factories
from .location_scale import LocationScale


class Cauchy(LocationScale):
    @property
    def mean(self):
        return _factories.full_like(self.loc, math.nan)

    @property
    def variance(self):
        return _factories.full_like(self.loc, math.inf)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        uniform = _factories.rand(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * (math.pi * (uniform - 0.5)).tan()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
